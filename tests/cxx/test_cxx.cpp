// test_cxx.cpp — the public headers from C++: they compile (chronoid.h,
// chronoid_lease.h), the generators embed in C++ objects with the layout C
// gives them (sizes and offsets compared with c_layout.c, compiled as C),
// and the calls work through extern "C".  TAP on stdout.
#include <cstdio>
#include <cstring>
#include <cstddef>

#include "chronoid.h"
#include "chronoid_lease.h"

extern "C" const size_t cid_test_c_layout[];

static int n = 0, failed = 0;

static void
check(bool ok, const char *name)
{
	n++;
	if (!ok)
		failed++;
	std::printf("%sok %d - %s\n", ok ? "" : "not ", n, name);
}

// A C++ class owning generators, as an application would.
struct IdSource
{
	cid_snowflake_gen sf;
	cid_uuidv7_gen v7;
	cid_ulid_gen ulid;
};

int
main()
{
	static IdSource src;
	const size_t cxx_layout[] = {
		sizeof(cid_snowflake_gen), alignof(cid_snowflake_gen),
		offsetof(cid_snowflake_gen, state),
		sizeof(cid_uuidv7_gen), alignof(cid_uuidv7_gen),
		offsetof(cid_uuidv7_gen, state),
		sizeof(cid_ulid_gen), alignof(cid_ulid_gen),
		offsetof(cid_ulid_gen, lock), offsetof(cid_ulid_gen, last),
		sizeof(cid_lease_opts),
		/* issue 27: ObjectId, UUIDv6, cid_id_info */
		sizeof(cid_objectid_gen), alignof(cid_objectid_gen),
		offsetof(cid_objectid_gen, state), offsetof(cid_objectid_gen, epoch),
		sizeof(cid_uuidv6_gen), offsetof(cid_uuidv6_gen, state),
		sizeof(cid_id_info), offsetof(cid_id_info, prefix), 0
	};
	bool		same = true;

	for (size_t i = 0; cxx_layout[i] != 0 || cid_test_c_layout[i] != 0; i++)
		same = same && cxx_layout[i] == cid_test_c_layout[i];
	check(same, "generator structs: same size, alignment and offsets in C++ as in C");

	check(cid_snowflake_init(&src.sf, nullptr, 7, nullptr, nullptr) == CID_OK,
		  "cid_snowflake_init from C++");
	{
		uint64_t	prev = 0,
					id = 0;
		bool		up = true;

		for (int i = 0; i < 10000; i++)
		{
			int			rc = cid_snowflake_next(&src.sf, &id);

			up = up && rc >= 0 && id > prev;
			prev = id;
		}
		cid_snowflake_parts parts;

		check(up && cid_snowflake_decode(&parts, &src.sf.layout, id) == CID_OK && parts.node == 7,
			  "10000 snowflakes strictly increase and decode to node 7");
	}

	check(cid_uuidv7_init(&src.v7, nullptr) == CID_OK, "cid_uuidv7_init from C++");
	{
		cid_uuid	a,
					b;
		char		text[CID_UUID_STRLEN + 1];

		bool		ok = cid_uuidv7_next(&src.v7, &a) >= 0 && cid_uuidv7_next(&src.v7, &b) >= 0 &&
			std::memcmp(a.bytes, b.bytes, 16) < 0 && cid_uuid_version(&b) == 7;

		cid_uuid_format(text, &b);
		text[CID_UUID_STRLEN] = '\0';
		cid_uuid	back;

		check(ok && cid_uuid_parse(&back, text, std::strlen(text), nullptr) == CID_OK &&
			  std::memcmp(back.bytes, b.bytes, 16) == 0,
			  "UUIDv7s increase, are version 7 and survive format/parse");
	}

	check(cid_ulid_init(&src.ulid, true, nullptr) == CID_OK, "cid_ulid_init (monotonic) from C++");
	{
		cid_ulid	a,
					b;

		check(cid_ulid_next(&src.ulid, &a) >= 0 && cid_ulid_next(&src.ulid, &b) >= 0 &&
			  std::memcmp(a.bytes, b.bytes, 16) < 0,
			  "monotonic ULIDs increase");
	}
	check(std::strlen(cid_strerror(CID_ENODE)) > 0, "cid_strerror from C++");

	std::printf("1..%d\n", n);
	return failed == 0 ? 0 : 1;
}
