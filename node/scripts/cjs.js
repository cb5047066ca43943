// cjs.js — lib/api.cjs and lib/wasm-native.cjs from their ES module
// sources (require() cannot load an ES module on every Node the package
// supports, and a browser cannot load CommonJS).  The sources keep to two
// forms this rewrites: `import { a, b } from './x.mjs';` and a closing
// `export { a, b };`.  `node scripts/cjs.js --check` fails when a .cjs
// file is not what its source makes (test/wasm.test.js runs it).
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const lib = path.join(__dirname, '..', 'lib');
const SOURCES = ['api.mjs', 'wasm-native.mjs'];

function commonjs(name, text) {
  const body = text
    .replace(/^import \{([^}]*)\} from '\.\/([\w-]+)\.mjs';$/gm, "const {$1} = require('./$2.cjs');")
    .replace(/^export \{([^}]*)\};$/gm, 'module.exports = {$1};');
  if (/^\s*(import|export)\b/m.test(body))
    throw new Error(`${name}: an import or export this script cannot rewrite`);
  return `// Made from ${name} by scripts/cjs.js: edit that file, not this one.\n'use strict';\n\n${body}`;
}

let stale = 0;
for (const name of SOURCES) {
  const out = path.join(lib, name.replace(/\.mjs$/, '.cjs'));
  const want = commonjs(name, fs.readFileSync(path.join(lib, name), 'utf8'));
  if (process.argv.includes('--check')) {
    if (!fs.existsSync(out) || fs.readFileSync(out, 'utf8') !== want) {
      console.error(`${path.relative(process.cwd(), out)} is stale: run node scripts/cjs.js`);
      stale++;
    }
  } else {
    fs.writeFileSync(out, want);
  }
}
process.exit(stale ? 1 : 0);
