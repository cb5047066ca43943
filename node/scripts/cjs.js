// cjs.js — lib/api.cjs and lib/wasm-native.cjs from their ES module
// sources (require() cannot load an ES module on every Node the package
// supports, and a browser cannot load CommonJS), and wasm.d.ts, the
// declarations of the WebAssembly entry, from index.d.ts.  The sources
// keep to two forms this rewrites: `import { a, b } from './x.mjs';` and a
// closing `export { a, b };`.  `node scripts/cjs.js --check` fails when a
// made file is not what its source makes (test/wasm.test.js runs it).
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

/*
 * The WebAssembly entry's declarations: index.d.ts with every Buffer a
 * Uint8Array, and no reference to Node's types.  Browsers, workers and
 * edge runtimes have no Buffer (the build returns Uint8Arrays there, and
 * Buffers, which are Uint8Arrays, under Node), and a page's TypeScript
 * has no @types/node to resolve.
 */
function browserTypes(text) {
  const body = text
    .replace(/^\/\/\/ <reference types="node" \/>\n/m, '')
    .replace(/\bBuffer\b/g, 'Uint8Array');
  if (/\bNodeJS\b|reference types/.test(body))
    throw new Error('index.d.ts: a Node type this script cannot rewrite');
  return `// Made from index.d.ts by scripts/cjs.js: edit that file, not this one.\n${body}`;
}

const made = SOURCES.map((name) => [path.join(lib, name.replace(/\.mjs$/, '.cjs')),
  () => commonjs(name, fs.readFileSync(path.join(lib, name), 'utf8'))]);
made.push([path.join(lib, '..', 'wasm.d.ts'),
  () => browserTypes(fs.readFileSync(path.join(lib, '..', 'index.d.ts'), 'utf8'))]);

let stale = 0;
for (const [out, make] of made) {
  const want = make();
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
