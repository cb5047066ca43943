/*
 * version.c — the running library's version (cid_version), so that a
 * program can tell which libchronoid it was loaded with, not only which
 * header it was compiled against.
 */
#include "chronoid.h"

const char *
cid_version(void)
{
	return CID_VERSION_STRING;
}

int
cid_version_number(void)
{
	return CID_VERSION_NUMBER;
}
