/*
 * wasm.h — what the WebAssembly glue's two files share (not installed).
 */
#ifndef CID_WASM_H
#define CID_WASM_H

#include "chronoid.h"

/* The generators' clock, random source and wait: the host page's. */
extern const cid_env cw_env;

/*
 * A reading of Date.now() (Unix ms) as the core's clock gives it: ns, or
 * -1 for a failed reading (NaN, before 1970, past the year 2261).
 */
int64_t		cw_clock_ns(double ms);

#endif							/* CID_WASM_H */
