// worker.mjs — test/cases.mjs in workerd: the package as an edge runtime
// meets it (package.json's "workerd" condition, the module imported as a
// compiled WebAssembly module), answering one request with the results.
import chronoid from 'chronoid';
import { run } from './cases.mjs';

export default {
  async fetch() {
    let result;
    try {
      result = run(chronoid);
    } catch (e) {
      result = { crash: String(e && e.stack || e) };
    }
    return new Response(JSON.stringify(result), { headers: { 'content-type': 'application/json' } });
  },
};
