/*
 * main.c — chronoid-migrate, which "chronoid migrate ..." runs (cli/main.c
 * finds it in chronoid's libexec directory).  Run directly it behaves the
 * same: messages still say "chronoid: migrate run: ...".
 */
#include "migrate_internal.h"

int
main(int argc, char **argv)
{
	static char name[] = "migrate";

	argv[0] = name;
	return mig_cmd_main(argc, argv);
}
