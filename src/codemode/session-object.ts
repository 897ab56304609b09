import { DurableObject } from "cloudflare:workers";
import { NotConfiguredError } from "../errors.js";
import type { SandboxCell, SandboxIsolation } from "./sandbox-worker.js";
import { runCell, sandboxFailure, type CellLimits, type CellResult, type StateEntry } from "./sandbox.js";
import type { ToolHost } from "./code-mode.js";

/**
 * Which of the two sandboxes the bundle carries, when the Worker's build says (wrangler.toml
 * `define = { AGNO_CODEMODE_SANDBOX = '"loader"' }`): "loader" leaves out QuickJS for this object's
 * own isolate, "object" leaves out the loaded sandbox Worker. Unset, both are in and the
 * `CODEMODE_LOADER` binding chooses. Each sandbox needs QuickJS in a form of its own (a compiled
 * module here, bytes for the Worker Loader: workerd neither compiles bytes at run time nor passes
 * a compiled module to another isolate), so a bundle with both carries it twice. Each sandbox is
 * imported where it is used, under a test on this constant written out in place: a bundler drops
 * the import only from a branch it can see is dead.
 */
declare const AGNO_CODEMODE_SANDBOX: "loader" | "object" | undefined;

/** What the object reads from its environment. */
interface SessionEnv {
  /** the Worker Loader binding (`[[worker_loaders]]`): when bound, cells run in a loaded sandbox Worker */
  CODEMODE_LOADER?: WorkerLoader;
}

/**
 * One CodeMode session: runs its cells one at a time, in arrival order, each in a fresh QuickJS
 * sandbox, and keeps the session's top-level names in storage, so they outlive the object's
 * memory (eviction, restart, redeploy). With `CODEMODE_LOADER` bound, QuickJS runs inside a
 * Worker loaded for this session with no network; without it, inside this object's isolate.
 */
export class CodeModeSession extends DurableObject<SessionEnv> {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs one cell after every cell sent before it has finished. */
  run(code: string, toolNames: string[], host: ToolHost, limits?: Partial<CellLimits>): Promise<CellResult> {
    const turn = this.tail.then(() => this.runNow(code, toolNames, host, limits));
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  /** The persisted names and how each is kept (for inspection and tests). */
  async state(): Promise<StateEntry[]> {
    return (await this.ctx.storage.get<StateEntry[]>("state")) ?? [];
  }

  /** Where this session's cells run and, in a loaded sandbox, whether `probeUrl` is reachable from there (it must not be). */
  async isolation(probeUrl: string): Promise<SandboxIsolation> {
    if (typeof AGNO_CODEMODE_SANDBOX === "undefined" || AGNO_CODEMODE_SANDBOX !== "object") {
      const loader = this.env.CODEMODE_LOADER;
      if (loader) {
        const { loadedSandboxIsolation } = await import("./loaded-sandbox.js");
        return loadedSandboxIsolation(loader, this.ctx.id.toString(), probeUrl);
      }
    }
    return { where: "object" };
  }

  /** Forgets every variable of the session. */
  async reset(): Promise<void> {
    await this.ctx.storage.delete("state");
  }

  private async runNow(
    code: string,
    toolNames: string[],
    host: ToolHost,
    limits?: Partial<CellLimits>,
  ): Promise<CellResult> {
    const state = await this.state();
    let outcome;
    try {
      outcome = await this.inSandbox({ code, state, toolNames, limits }, host);
    } catch (error) {
      // The interpreter (a WebAssembly trap) or the loaded Worker failed: the session's state is kept.
      return sandboxFailure(error);
    }
    await this.ctx.storage.put("state", outcome.state);
    return outcome.cell;
  }

  /** Runs the cell in a Worker loaded for this session when the loader is bound, else in this isolate. */
  private async inSandbox(cell: SandboxCell, host: ToolHost): Promise<{ cell: CellResult; state: StateEntry[] }> {
    if (typeof AGNO_CODEMODE_SANDBOX === "undefined" || AGNO_CODEMODE_SANDBOX !== "object") {
      const loader = this.env.CODEMODE_LOADER;
      if (loader) {
        const { runInLoadedSandbox } = await import("./loaded-sandbox.js");
        return runInLoadedSandbox(loader, this.ctx.id.toString(), cell, host);
      }
    }
    if (typeof AGNO_CODEMODE_SANDBOX === "undefined" || AGNO_CODEMODE_SANDBOX !== "loader") {
      const { quickJS } = await import("./quickjs.js");
      try {
        return await runCell(await quickJS.get(), { ...cell, callTool: (name, args) => host.call(name, args) });
      } catch (error) {
        // The next cell gets a fresh interpreter.
        quickJS.forget();
        throw error;
      }
    }
    throw new NotConfiguredError(
      'this Worker was built with the loaded sandbox only (AGNO_CODEMODE_SANDBOX "loader"): CodeMode needs the CODEMODE_LOADER binding',
    );
  }
}
