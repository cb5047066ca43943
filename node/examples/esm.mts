// esm.mts — the package from an ES module in TypeScript, as test/types.sh
// compiles it under module "nodenext" and under "bundler" resolution: the
// named exports, a namespace and the default all type-check, and the
// compiled file runs.
import { uuidv7, Snowflake, inspect, type IdInfo } from 'chronoid';
import * as ns from 'chronoid';
import chronoid from 'chronoid';

const sf = new Snowflake({ node: 32, scope: 'esm-types' });
const id: bigint = sf.next();
const text: string = uuidv7();
const info: IdInfo = inspect(text);
const again: string = ns.ulid();
const v: string = chronoid.version;
sf.close();
console.log(JSON.stringify({ id: String(id), text, kind: info.kind, again, v }));
