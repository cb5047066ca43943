/*
 * random_internal.h — private hooks of src/random.c, for the fork tests
 * only; not part of the public API.
 */
#ifndef CID_RANDOM_INTERNAL_H
#define CID_RANDOM_INTERNAL_H

#include <stdbool.h>

/*
 * Turn MADV_WIPEONFORK on or off for the calling thread's random buffer
 * and for buffers created later, so a test can check each fork defence on
 * its own.  Returns 0, or -1 when the kernel lacks MADV_WIPEONFORK.
 */
int			cid_random_test_wipeonfork(bool enable);

#endif							/* CID_RANDOM_INTERNAL_H */
