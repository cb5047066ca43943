// Type declarations of the WebAssembly entry (lib/wasm.mjs: browsers,
// workers, edge runtimes, "chronoid/wasm"): the named exports of
// wasm.d.ts, and the whole module as the default export.
export * from './wasm.js';
import * as chronoid from './wasm.js';
export default chronoid;
