/*
 * main.c — chronoid-block, which "chronoid block ..." runs (cli/main.c
 * finds it in chronoid's libexec directory).  Run directly it behaves the
 * same: messages still say "chronoid: block: ...".
 */
#include "chronoid_lease.h"
#include "cli_internal.h"

int			block_cmd_main(int argc, char **argv);

int
main(int argc, char **argv)
{
	static char name[] = "block";

	argv[0] = name;
	return block_cmd_main(argc, argv);
}
