/*
 * main.c — chronoid-lease, which "chronoid lease ..." runs (cli/main.c
 * finds it in chronoid's libexec directory).  Run directly it behaves the
 * same: messages still say "chronoid: lease run: ...".
 */
#include "cmd_lease_internal.h"

int
main(int argc, char **argv)
{
	static char name[] = "lease";

	argv[0] = name;
	return cmd_lease_main(argc, argv);
}
