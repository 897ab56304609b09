import releaseSync from "@jitl/quickjs-wasmfile-release-sync";
// By file path: wrangler bundles a .wasm import as a compiled module only when the import path
// ends in .wasm, which the package's "./wasm" export does not (and workerd compiles no bytes).
import wasmModule from "../../node_modules/@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.wasm";
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from "quickjs-emscripten-core";

let loading: Promise<QuickJSWASMModule> | undefined;

/**
 * The QuickJS interpreter, instantiated once per isolate from the bundled WebAssembly module.
 * `forget()` drops it, so the next cell gets a fresh instance (after a WebAssembly abort, say).
 */
export const quickJS = {
  get(): Promise<QuickJSWASMModule> {
    loading ??= newQuickJSWASMModuleFromVariant(newVariant(releaseSync, { wasmModule })).catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  },
  forget(): void {
    loading = undefined;
  },
};
