// By file path: wrangler bundles a .wasm import as a compiled module only when the import path
// ends in .wasm, which the package's "./wasm" export does not (and workerd compiles no bytes).
import wasmModule from "../../node_modules/@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.wasm";
import { quickJSLoader } from "./quickjs-loader.js";

/** The QuickJS interpreter of this isolate (the CodeModeSession object's, when no loader is bound). */
export const quickJS = quickJSLoader(wasmModule);
