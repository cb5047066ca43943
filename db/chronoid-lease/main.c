/*
 * main.c — chronoid-lease, which "chronoid lease ..." runs (cli/main.c
 * finds it in chronoid's libexec directory).  Run directly it behaves the
 * same: messages still say "chronoid: lease run: ...".
 */
#include "lease_cmd_internal.h"

int
main(int argc, char **argv)
{
	static char name[] = "lease";

	argv[0] = name;
	return lease_cmd_main(argc, argv);
}
