// esm.test.js — the package as an ES module and as CommonJS, the way an
// application meets it: installed under node_modules/chronoid, imported
// by name from a .mjs file (named exports, a namespace, the default) and
// required from a .cjs file; both faces give the same objects, and the
// ES module's names are exactly the CommonJS keys.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
require('./helpers');

const pkg = path.resolve(__dirname, '..');

function app(files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chronoid-esm-'));
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(pkg, path.join(dir, 'node_modules', 'chronoid'));
  for (const [name, text] of Object.entries(files))
    fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

function run(dir, file) {
  return execFileSync(process.execPath, [file], { cwd: dir, env: process.env, encoding: 'utf8' });
}

test('import { uuidv7, Snowflake } from "chronoid" in an ES module, and the rest', () => {
  const dir = app({
    'app.mjs': `
      import { uuidv7, ulid, Snowflake, inspect, version } from 'chronoid';
      import * as ns from 'chronoid';
      import chronoid from 'chronoid';
      import { createRequire } from 'node:module';
      const cjs = createRequire(import.meta.url)('chronoid');
      const sf = new Snowflake({ node: 31, scope: 'esm', claim: false });
      const named = Object.keys(ns).filter((k) => k !== 'default').sort();
      console.log(JSON.stringify({
        uuid: uuidv7(), ulid: ulid(), sf: String(sf.next()), kind: inspect(uuidv7()).kind,
        version, named, cjsKeys: Object.keys(cjs).sort(),
        same: named.every((k) => ns[k] === cjs[k]) && chronoid === cjs,
      }));
    `,
    'app.cjs': `
      const { uuidv7, Snowflake } = require('chronoid');
      console.log(uuidv7(), typeof Snowflake);
    `,
  });
  try {
    const got = JSON.parse(run(dir, 'app.mjs'));
    assert.match(got.uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    assert.equal(got.ulid.length, 26);
    assert.equal(got.kind, 'uuid');
    assert.ok(BigInt(got.sf) > 0n);
    assert.deepEqual(got.named, got.cjsKeys);
    assert.equal(got.same, true);
    assert.match(run(dir, 'app.cjs'), /^[0-9a-f-]{36} function\n$/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
