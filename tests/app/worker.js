// worker.js — the Node face of the application state machine
// (tests/app/statemachine.py): a process that makes Snowflake generators
// with the npm package, driven by commands on stdin, one per line, with
// the protocol of worker.c.  It loads one copy of the addon per package
// directory named on the command line (two: what npm's nesting does), and
// COPY in `open` says which one makes the generator.
//
//   open H COPY SCOPE NODE CLAIM   new Snowflake({ node, scope, claim })
//   mint H K | batch H N | close H | exit     as in worker.c
//   child SCOPE NODE K             Node has no fork: a child process (as
//                                  cluster makes them) claims ("cc ok")
//                                  and mints K ("cr STATUS")
//
// Each ID is written (one writeSync) before the next is made.
// `worker.js --child PKG SCOPE NODE K` is that child.
'use strict';

const fs = require('node:fs');
const { spawnSync } = require('node:child_process');

function say(line) {
  fs.writeSync(1, line + '\n');
}

// The status word of a chronoid error code, as worker.c's word().
function word(e) {
  switch (e && e.code) {
    case 'CHRONOID_ENODE_HELD': return 'held';
    case 'CHRONOID_ECLAIM': return 'eclaim';
    case 'CHRONOID_EFORKED': return 'forked';
    default: return 'err';
  }
}

function failed(e) {
  return `r ${word(e)} ${e && e.code} ${e && e.holderPid ? e.holderPid : 0} ${String(e && e.message).replace(/\n/g, ' ')}`;
}

const u64 = (id) => BigInt.asUintN(64, id).toString();

if (process.argv[2] === '--child') {
  const [pkg, scope, node, k] = process.argv.slice(3);
  const cid = require(pkg);
  let sf;
  try {
    sf = new cid.Snowflake({ node: Number(node), scope });
  } catch (e) {
    say(failed(e).replace(/^r /, 'cr '));
    process.exit(0);
  }
  say('cc ok');
  try {
    for (let i = 0; i < Number(k); i++)
      say(`id c ${u64(sf.next())}`);
    say('cr ok');
  } catch (e) {
    say(failed(e).replace(/^r /, 'cr '));
  }
  process.exit(0);
}

const pkgs = process.argv.slice(2);
const copies = pkgs.map((p) => require(p));
const handles = new Map();

function open(h, copy, scope, node, claim) {
  if (handles.has(h) || !copies[copy])
    return say(`r bad handle ${h} or copy ${copy}`);
  try {
    handles.set(h, new copies[copy].Snowflake({ node: Number(node), scope, claim: claim === '1' }));
    say('r ok');
  } catch (e) {
    say(failed(e));
  }
}

function mint(h, k, batch) {
  const sf = handles.get(h);
  if (!sf)
    return say(`r bad handle ${h}`);
  try {
    if (batch) {
      const ids = sf.batch(k);
      fs.writeSync(1, Array.from(ids, (id) => `id ${h} ${u64(id)}\n`).join(''));
    } else {
      for (let i = 0; i < k; i++)
        say(`id ${h} ${u64(sf.next())}`);
    }
    say('r ok');
  } catch (e) {
    say(failed(e));
  }
}

function child(scope, node, k) {
  const r = spawnSync(process.execPath, [__filename, '--child', pkgs[0], scope, node, k],
    { env: process.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  // Whole lines only: a line cut short was never written.
  const out = r.stdout || '';
  fs.writeSync(1, out.slice(0, out.lastIndexOf('\n') + 1));
  say(r.status === 0 ? `r ok ${r.pid}` : `r err child ${r.pid} status ${r.status} signal ${r.signal}`);
}

let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buf += chunk;
  let nl;
  while ((nl = buf.indexOf('\n')) >= 0) {
    const [cmd, ...a] = buf.slice(0, nl).split(' ');
    buf = buf.slice(nl + 1);
    switch (cmd) {
      case 'open': open(a[0], Number(a[1]), a[2], a[3], a[4]); break;
      case 'mint': mint(a[0], Number(a[1]), false); break;
      case 'batch': mint(a[0], Number(a[1]), true); break;
      case 'close': {
        const sf = handles.get(a[0]);
        if (!sf) {
          say(`r bad handle ${a[0]}`);
          break;
        }
        sf.close();
        handles.delete(a[0]);
        say('r ok');
        break;
      }
      case 'child': child(a[0], a[1], a[2]); break;
      case 'exit':
        for (const sf of handles.values())
          sf.close();
        say('r ok');
        process.exit(0);
        break;
      default: say(`r bad command ${cmd}`);
    }
  }
});
process.stdin.on('end', () => process.exit(0));
