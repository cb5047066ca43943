/*
 * cmd_lease_internal.h — what the files of chronoid-lease (the "chronoid
 * lease" command) share.  Not installed.
 */
#ifndef CHRONOID_LEASE_CMD_INTERNAL_H
#define CHRONOID_LEASE_CMD_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The command itself (cmd_lease.c): argv[0] is "lease". */
int			cmd_lease_main(int argc, char **argv);

/* Its --help text (cmd_lease_usage.c). */
void		cmd_lease_usage(FILE *fp);

#endif							/* CHRONOID_LEASE_CMD_INTERNAL_H */
