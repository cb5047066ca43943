// Type declarations of the package's ES module entry (lib/index.mjs): the
// named exports of index.d.ts, and the whole module as the default export.
export * from './index.js';
import * as chronoid from './index.js';
export default chronoid;
