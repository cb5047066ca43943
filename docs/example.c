/*
 * example.c — the README's C example: a Snowflake and a UUIDv7 from the
 * installed library.  tests/scenarios/install.sh builds and runs it.
 */
#include <chronoid.h>
#include <stdio.h>

int
main(void)
{
	cid_snowflake_gen sf;
	cid_uuidv7_gen v7;
	cid_uuid	u;
	char		text[CID_UUID_STRLEN + 1];
	uint64_t	id;
	int			rc;

	/* node 7 under the default (pgEdge) layout, default policies, real clock */
	if (cid_snowflake_init(&sf, NULL, 7, NULL, NULL) != CID_OK ||
		cid_uuidv7_init(&v7, NULL) != CID_OK)
		return 1;

	rc = cid_snowflake_next(&sf, &id);
	if (rc < 0)
	{
		fprintf(stderr, "snowflake: %s\n", cid_strerror(rc));
		return 1;
	}
	if (cid_uuidv7_next(&v7, &u) != CID_OK)
		return 1;
	cid_uuid_format(text, &u);
	printf("%llu %s\n", (unsigned long long) id, text);
	return 0;
}
