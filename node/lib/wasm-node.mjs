// wasm-node.mjs — the WebAssembly module under Node, for `import "chronoid/wasm"`
// (require("chronoid") picks its build in lib/index.js): lib/chronoid.wasm
// read from beside this file, with node:crypto's random bytes.
import { readFileSync } from 'node:fs';
import { randomFillSync } from 'node:crypto';
import { wasmImports } from './wasm-native.mjs';

let instance = null;
instance = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(new URL('./chronoid.wasm', import.meta.url))),
  wasmImports({ randomFill: (u8) => randomFillSync(u8) }, () => instance.exports.memory));

export default instance;
