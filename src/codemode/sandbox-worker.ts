import { WorkerEntrypoint } from "cloudflare:workers";
// Not a file next to this one: the Worker Loader supplies it as a module of the loaded Worker.
import wasmModule from "./quickjs.wasm";
import type { ToolHost } from "./code-mode.js";
import { quickJSLoader } from "./quickjs-loader.js";
import { runCell, type CellLimits, type CellResult, type StateEntry } from "./sandbox.js";

/** One cell as the CodeModeSession object hands it to the loaded sandbox Worker. */
export interface SandboxCell {
  code: string;
  state: StateEntry[];
  toolNames: string[];
  limits?: Partial<CellLimits>;
}

const quickJS = quickJSLoader(wasmModule);

/**
 * The Worker the CodeModeSession object loads with the Worker Loader (`CODEMODE_LOADER`), one
 * isolate per session, with no network (`globalOutbound: null`) and no bindings: cells run here,
 * inside QuickJS, and reach tools only through the `host` stub the object passes in. Bundled by
 * `scripts/build-sandbox.ts` into `generated/sandbox-bundle.ts`; never imported by the main Worker.
 */
export default class CodeSandbox extends WorkerEntrypoint<Record<string, unknown>> {
  async run(cell: SandboxCell, host: ToolHost): Promise<{ cell: CellResult; state: StateEntry[] }> {
    try {
      return await runCell(await quickJS.get(), { ...cell, callTool: (name, args) => host.call(name, args) });
    } catch (error) {
      // The interpreter itself failed: the session object reports it, and the next cell gets a fresh one.
      quickJS.forget();
      throw error;
    }
  }

  /** What this isolate can reach, for operators and tests: `probeUrl` must be unreachable. */
  async isolation(probeUrl: string): Promise<SandboxIsolation> {
    let network: SandboxIsolation["network"];
    try {
      await fetch(probeUrl);
      network = "open";
    } catch {
      network = "blocked";
    }
    return { where: "worker-loader", network, bindings: Object.keys(this.env ?? {}) };
  }
}

export interface SandboxIsolation {
  /** where cells run: a loaded Worker, or the CodeModeSession object's own isolate (no loader bound) */
  where: "worker-loader" | "object";
  network?: "blocked" | "open";
  bindings?: string[];
}
