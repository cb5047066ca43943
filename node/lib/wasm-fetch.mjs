// wasm-fetch.mjs — the WebAssembly module for browsers and workers:
// lib/chronoid.wasm fetched from beside this file (a bundler copies it
// next to the bundle), instantiated once, with crypto.getRandomValues.
import { wasmImports } from './wasm-native.mjs';

let instance = null;
const imports = wasmImports({ randomFill: (u8) => crypto.getRandomValues(u8) }, () => instance.exports.memory);
const response = await fetch(new URL('./chronoid.wasm', import.meta.url));
if (!response.ok)
  throw new Error(`chronoid: cannot load its WebAssembly module ${response.url}: HTTP ${response.status}`);
// instantiateStreaming compiles while the bytes arrive, but needs the
// server to say application/wasm; other servers get the plain way.
instance = (response.headers.get('content-type') === 'application/wasm'
  ? await WebAssembly.instantiateStreaming(response, imports)
  : await WebAssembly.instantiate(await response.arrayBuffer(), imports)).instance;

export default instance;
