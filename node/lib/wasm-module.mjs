// wasm-module.mjs — the WebAssembly module for edge runtimes that compile
// no code at run time (workerd, Cloudflare Workers): lib/chronoid.wasm is
// imported as a module the runtime compiled when it loaded the worker.
import { wasmImports } from './wasm-native.mjs';
import compiled from './chronoid.wasm';

let instance = null;
instance = new WebAssembly.Instance(compiled, wasmImports({ randomFill: (u8) => crypto.getRandomValues(u8) },
  () => instance.exports.memory));

export default instance;
