import type { ToolHost } from "./code-mode.js";
import { QUICKJS_WASM_GZIP_BASE64, SANDBOX_JS, SANDBOX_VERSION } from "./generated/sandbox-bundle.js";
import type { CellResult, StateEntry } from "./sandbox.js";
import type CodeSandbox from "./sandbox-worker.js";
import type { SandboxCell, SandboxIsolation } from "./sandbox-worker.js";

/**
 * CPU a loaded sandbox may use per call, enforced by the Workers runtime in production (local
 * workerd does not enforce it): a backstop behind QuickJS's own budget, which stops a cell first.
 */
const SANDBOX_CPU_MS = 10_000;

let wasmBytes: Promise<ArrayBuffer> | undefined;

/** The QuickJS WebAssembly as bytes, inflated once per isolate (the loader compiles it). */
function quickJSWasm(): Promise<ArrayBuffer> {
  if (!wasmBytes) {
    const text = atob(QUICKJS_WASM_GZIP_BASE64);
    const gzipped = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) gzipped[i] = text.charCodeAt(i);
    wasmBytes = new Response(new Blob([gzipped]).stream().pipeThrough(new DecompressionStream("gzip"))).arrayBuffer();
    wasmBytes.catch(() => (wasmBytes = undefined));
  }
  return wasmBytes;
}

/**
 * Runs a cell in the sandbox Worker, loaded with the Worker Loader into an isolate of its own per
 * session (`isolateKey`) and per sandbox build: no network (`globalOutbound: null`), no bindings,
 * only the tool host it is handed. Inside it the cell still runs in QuickJS, which bounds CPU,
 * memory and wall time the same way everywhere, local workerd included.
 */
export function runInLoadedSandbox(
  loader: WorkerLoader,
  isolateKey: string,
  cell: SandboxCell,
  host: ToolHost,
): Promise<{ cell: CellResult; state: StateEntry[] }> {
  return sandboxOf(loader, isolateKey).run(cell, host) as Promise<{ cell: CellResult; state: StateEntry[] }>;
}

/** What a session's loaded sandbox can reach (see CodeSandbox.isolation). */
export function loadedSandboxIsolation(
  loader: WorkerLoader,
  isolateKey: string,
  probeUrl: string,
): Promise<SandboxIsolation> {
  return sandboxOf(loader, isolateKey).isolation(probeUrl) as Promise<SandboxIsolation>;
}

function sandboxOf(loader: WorkerLoader, isolateKey: string) {
  const worker = loader.get(`codemode-${SANDBOX_VERSION}-${isolateKey}`, async () => ({
    compatibilityDate: "2026-04-01",
    mainModule: "sandbox.js",
    modules: { "sandbox.js": { js: SANDBOX_JS }, "quickjs.wasm": { wasm: await quickJSWasm() } },
    globalOutbound: null,
    env: {},
    limits: { cpuMs: SANDBOX_CPU_MS },
  }));
  return worker.getEntrypoint<CodeSandbox>();
}
