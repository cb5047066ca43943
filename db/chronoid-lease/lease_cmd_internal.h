/*
 * lease_cmd_internal.h — what the files of chronoid-lease (the "chronoid
 * lease" command) share.  Not installed.
 */
#ifndef CHRONOID_LEASE_CMD_INTERNAL_H
#define CHRONOID_LEASE_CMD_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * A duration: digits then "ms", "s", "m" or "h", or digits alone
 * (seconds).  false for anything else or above a day.
 */
bool		lease_parse_duration(const char *s, int64_t *ms);

/* "N" or "LO-HI" (decimal, at most 2^32-1); false when malformed or LO > HI. */
bool		lease_parse_range(const char *s, uint64_t *lo, uint64_t *hi);

/* The command itself (cmd_lease.c): argv[0] is "lease". */
int			lease_cmd_main(int argc, char **argv);

/* Its --help text (lease_usage.c). */
void		lease_usage(FILE *fp);

#endif							/* CHRONOID_LEASE_CMD_INTERNAL_H */
