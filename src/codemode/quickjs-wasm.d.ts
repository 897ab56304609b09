// The QuickJS interpreter's WebAssembly, imported as a compiled module: workerd refuses to
// compile WebAssembly from bytes at run time, so wrangler and the test pool bundle it as a module.
declare module "*.wasm" {
  const wasm: WebAssembly.Module;
  export default wasm;
}
