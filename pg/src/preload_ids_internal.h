/*
 * preload_ids_internal.h — the preloaded mode's server-wide UUIDv7 and monotonic
 * ULID generators (preload_ids.c) and their durable high-water mark.
 */
#ifndef CID_PG_PRELOAD_IDS_INTERNAL_H
#define CID_PG_PRELOAD_IDS_INTERNAL_H

#include "chronoid_internal.h"

/* Registers the shared part; called by _PG_init. */
void		cid_pg_preload_ids_init(void);

/* True in every process of a server that preloaded the module. */
bool		cid_pg_preload_ids_ready(void);

/*
 * One step of the shared generators with the calling backend's clock
 * reading and random bytes (the core's pure steps).  Returns the core's
 * status; on success the ID's millisecond is below the durable mark
 * before this returns (ERROR if the state file cannot be written).
 */
int			cid_pg_shared_uuidv7_next(int64_t now_ns, int64_t shift_us,
									  const uint8_t rand_b[8], cid_uuid *out);
int			cid_pg_shared_ulid_next(int64_t now_ms, const uint8_t rand[10],
									cid_ulid *out);

#endif							/* CID_PG_PRELOAD_IDS_INTERNAL_H */
