/*
 * wasm.h — what the WebAssembly glue's two files share (not installed).
 */
#ifndef CID_WASM_H
#define CID_WASM_H

#include "chronoid.h"

/* The generators' clock, random source and wait: the host page's. */
extern const cid_env cw_env;

/*
 * now_ms, a reading of Date.now() the host took for the call under way,
 * is the next clock reading (once); cw_clock_hint_clear() drops it unused
 * at the end of the call, so that no later call reads a stale time.
 */
void		cw_clock_hint(double now_ms);
void		cw_clock_hint_clear(void);

#endif							/* CID_WASM_H */
