/*
 * random_internal.h — private hooks of src/random.c: the fork tests' switch
 * and the fork epoch of process-bound generators; not part of the public
 * API.
 */
#ifndef CID_RANDOM_INTERNAL_H
#define CID_RANDOM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Turn MADV_WIPEONFORK on or off for the calling thread's random buffer
 * and for buffers created later, so a test can check each fork defence on
 * its own.  Returns 0, or -1 when the kernel lacks MADV_WIPEONFORK.
 */
int			cid_random_test_wipeonfork(bool enable);

/*
 * A value that changes in every child after fork() (and nowhere else): a
 * generator that keeps per-process random state (the ObjectId's process
 * bytes) compares it with the one its state was drawn under.  Cheap: one
 * relaxed load once the fork handler is installed.
 */
uint64_t	cid_random_fork_epoch(void);

#endif							/* CID_RANDOM_INTERNAL_H */
