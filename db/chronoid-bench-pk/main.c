/*
 * main.c — chronoid-bench-pk, which "chronoid bench-pk ..." runs
 * (cli/main.c finds it in chronoid's libexec directory).
 */
#include "bench_pk_internal.h"

int
main(int argc, char **argv)
{
	static char name[] = "bench-pk";

	argv[0] = name;
	return bpk_main(argc, argv);
}
