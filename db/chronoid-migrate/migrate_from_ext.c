/*
 * migrate_from_ext.c — "chronoid migrate from-extension" (placeholder
 * until the switch lands: it refuses, changing nothing).
 */
#include "cli_internal.h"
#include "migrate_internal.h"

int
mig_from_extension(const mig_opts *o)
{
	cli_error(o->sub, "not available in this build");
	return MIG_EXIT_FAIL;
}
