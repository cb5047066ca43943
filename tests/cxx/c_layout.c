/*
 * c_layout.c — the generator structs' layout as the C compiler sees it,
 * for test_cxx.cpp to compare with C++'s (0-terminated).
 */
#include <stddef.h>

#include "chronoid.h"
#include "chronoid_lease.h"

extern const size_t cid_test_c_layout[];

const size_t cid_test_c_layout[] = {
	sizeof(cid_snowflake_gen), _Alignof(cid_snowflake_gen),
	offsetof(cid_snowflake_gen, state),
	sizeof(cid_uuidv7_gen), _Alignof(cid_uuidv7_gen),
	offsetof(cid_uuidv7_gen, state),
	sizeof(cid_ulid_gen), _Alignof(cid_ulid_gen),
	offsetof(cid_ulid_gen, lock), offsetof(cid_ulid_gen, last),
	sizeof(cid_lease_opts),
		/* issue 27: ObjectId, UUIDv6, cid_id_info */
		sizeof(cid_objectid_gen), _Alignof(cid_objectid_gen),
		offsetof(cid_objectid_gen, state), offsetof(cid_objectid_gen, epoch),
		sizeof(cid_uuidv6_gen), offsetof(cid_uuidv6_gen, state),
		sizeof(cid_id_info), offsetof(cid_id_info, prefix), 0
};
