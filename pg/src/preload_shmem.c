/*
 * preload_shmem.c — shared memory for the preloaded mode.  Parts of the
 * extension register what they need from their _PG_init-time init
 * functions; when the module is in shared_preload_libraries, the hooks
 * here reserve it and hand each part its zone at startup.  Without
 * preload nothing is reserved and cid_pg_shmem_ready() stays false.
 */
#include "chronoid_internal.h"

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"

#define CID_PG_MAX_PARTS 4

static const cid_pg_shmem_part *parts[CID_PG_MAX_PARTS];
static int	nparts;
static bool shmem_ready;

#if PG_VERSION_NUM >= 150000
static shmem_request_hook_type prev_shmem_request_hook;
#endif
static shmem_startup_hook_type prev_shmem_startup_hook;

static void
cid_pg_shmem_request(void)
{
	int			i;

#if PG_VERSION_NUM >= 150000
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
#endif
	for (i = 0; i < nparts; i++)
	{
		RequestAddinShmemSpace(MAXALIGN(parts[i]->size()));
		if (parts[i]->nlwlocks > 0)
			RequestNamedLWLockTranche(parts[i]->name, parts[i]->nlwlocks);
	}
}

static void
cid_pg_shmem_startup(void)
{
	int			i;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	for (i = 0; i < nparts; i++)
	{
		bool		found;
		void	   *zone = ShmemInitStruct(parts[i]->name, parts[i]->size(), &found);
		LWLockPadded *locks = parts[i]->nlwlocks > 0 ?
			GetNamedLWLockTranche(parts[i]->name) : NULL;

		parts[i]->startup(zone, locks, found);
	}
	LWLockRelease(AddinShmemInitLock);
	shmem_ready = true;
}

void
cid_pg_shmem_register(const cid_pg_shmem_part *part)
{
	/* Shared memory can only be had while the postmaster preloads us. */
	if (!process_shared_preload_libraries_in_progress)
		return;
	if (nparts >= CID_PG_MAX_PARTS)
		elog(ERROR, "chronoid: too many shared memory parts");
	parts[nparts++] = part;
	if (nparts == 1)
	{
		/*
		 * Before 15 there is no request hook: _PG_init of a preloaded
		 * library may request directly (the sizes are known by now, as
		 * every part registers from _PG_init).
		 */
#if PG_VERSION_NUM >= 150000
		prev_shmem_request_hook = shmem_request_hook;
		shmem_request_hook = cid_pg_shmem_request;
#endif
		prev_shmem_startup_hook = shmem_startup_hook;
		shmem_startup_hook = cid_pg_shmem_startup;
	}
}

void
cid_pg_shmem_register_done(void)
{
#if PG_VERSION_NUM < 150000
	if (process_shared_preload_libraries_in_progress)
		cid_pg_shmem_request();
#endif
}

bool
cid_pg_shmem_ready(void)
{
	return shmem_ready;
}
