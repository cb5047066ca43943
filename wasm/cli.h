/*
 * cli.h — forced into the inspector's build of cli/ (-include): what
 * wasi-libc's headers leave out and wasm/cli.c supplies.
 */
#ifndef CID_WASM_CLI_H
#define CID_WASM_CLI_H

int			execv(const char *path, char *const argv[]);

#endif							/* CID_WASM_CLI_H */
