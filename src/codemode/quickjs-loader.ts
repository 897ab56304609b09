import releaseSync from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from "quickjs-emscripten-core";

/**
 * The QuickJS interpreter from an already compiled WebAssembly module (workerd compiles no bytes
 * at run time), instantiated once per isolate. `forget()` drops it, so the next cell gets a fresh
 * instance (after a WebAssembly trap, say).
 */
export function quickJSLoader(wasmModule: WebAssembly.Module) {
  let loading: Promise<QuickJSWASMModule> | undefined;
  return {
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
}
