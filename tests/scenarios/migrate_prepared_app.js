// migrate_prepared_app.js: a node-postgres application for
// migrate_prepared.sh.  A long-lived Client runs named statements (prepared
// on the server once per connection) SELECT * and INSERT ... RETURNING * on
// PREFIX orders and items in a loop; a Pool of one connection runs the same
// SELECT through pool.query().  Counts go to DIR/status.js after each round.
// With --cue it follows the migration's hooks: while DIR/pause exists both
// have closed their connections (said with DIR/paused.js); when it is gone
// they connect again.  DIR/stop ends it.
'use strict';
const fs = require('fs');
const path = require('path');
const { Client, Pool } = require(process.env.NODE_PG);

const [dir, prefix, flag] = process.argv.slice(2);
const cue = flag === '--cue';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const there = (f) => fs.existsSync(path.join(dir, f));
const counts = () => ({ ok: 0, fail: 0, codes: {}, ok_after_fail: 0, epochs: [0] });
const st = { client: counts(), pool: counts() };

function save() {
  fs.writeFileSync(path.join(dir, 'status.js.tmp'), JSON.stringify(st));
  fs.renameSync(path.join(dir, 'status.js.tmp'), path.join(dir, 'status.js'));
}

async function one(c, run) {
  try {
    await run();
    c.ok++;
    c.epochs[c.epochs.length - 1]++;
    if (c.fail) c.ok_after_fail++;
  } catch (e) {
    if (!e.code) throw e;
    c.fail++;
    c.codes[e.code] = (c.codes[e.code] || 0) + 1;
  }
}

(async () => {
  const opts = { application_name: 'app-node-postgres' };
  let client = new Client(opts);
  await client.connect();
  let pool = new Pool({ ...opts, max: 1 });
  const find = { name: 'find', text: `SELECT * FROM ${prefix}orders WHERE note = $1` };
  const add = {
    name: 'add',
    text: `INSERT INTO ${prefix}items (order_id, qty) SELECT id, 3 FROM ${prefix}orders WHERE note = $1 RETURNING *`,
  };
  let n = 0;
  while (!there('stop')) {
    if (cue && there('pause')) {
      await client.end();
      await pool.end();
      fs.writeFileSync(path.join(dir, 'paused.js'), '');
      while (there('pause')) await sleep(10);
      client = new Client(opts);
      await client.connect();
      pool = new Pool({ ...opts, max: 1 });
      st.client.epochs.push(0);
      st.pool.epochs.push(0);
    }
    n++;
    const values = [`o${(n % 50) + 1}`];
    await one(st.client, () => client.query({ ...find, values }));
    await one(st.client, () => client.query({ ...add, values }));
    await one(st.pool, () => pool.query({ ...find, values }));
    save();
    await sleep(5);
  }
  save();
  await client.end();
  await pool.end();
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
