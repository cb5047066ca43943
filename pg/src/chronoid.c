/*
 * chronoid.c — module entry of the chronoid extension: the magic block
 * and _PG_init, which wires the core library to PostgreSQL.
 */
#include "chronoid_internal.h"
#include "preload_ids_internal.h"

#include "fmgr.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/*
 * Runs in the postmaster when preloaded (shared_preload_libraries), else
 * in the first backend that calls into the module; both are supported.
 */
void
_PG_init(void)
{
	cid_pg_env_init();
	cid_pg_snowflake_init();
	cid_pg_preload_ids_init();
	cid_pg_shmem_register_done();
}
