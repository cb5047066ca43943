// browser.ts — the package as a page's TypeScript sees it: test/types.sh
// compiles it under "bundler" resolution with the DOM's types and no
// @types/node, so the exports map gives the WebAssembly entry's
// declarations (wasm.d.mts), where bytes are Uint8Arrays.
import { uuidv7Bytes, uuidv7Buffer, ulidToUuid, inspect, Snowflake } from 'chronoid';
import chronoid from 'chronoid';

const one = uuidv7Bytes();
const many = uuidv7Buffer(4);
const both: Uint8Array[] = [one, many];
// @ts-expect-error: a page has no Buffer, and its bytes are not declared as one
one.readUInt8(0);
const text: string = ulidToUuid(chronoid.ulidBytes());
const info = inspect(one);
const sf = new Snowflake({ node: 1, claim: false, scope: 'page' });
const id: bigint = sf.next();
sf.close();
document.title = `${text} ${info.kind} ${both.length} ${id}`;
