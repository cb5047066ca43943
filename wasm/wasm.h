/*
 * wasm.h — what the WebAssembly glue's two files share (not installed).
 */
#ifndef CID_WASM_H
#define CID_WASM_H

#include "chronoid.h"

/* The generators' clock, random source and wait: the host page's. */
extern const cid_env cw_env;

#endif							/* CID_WASM_H */
