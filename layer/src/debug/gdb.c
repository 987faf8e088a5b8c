/*
 * mpivet interposition layer: replay --gdb RANK. The rank the user wants to
 * debug stops once MPI is initialised, until a debugger is attached to it.
 * layer.conf says which rank (gdb=RANK).
 */
#include "../record/record.h"
#include "../record/conf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* wait_for_gdb stops the rank the user wants to debug until a debugger is
 * attached to it (replay --gdb RANK). */
static void wait_for_gdb(int me)
{
	fprintf(stderr, "mpivet: rank %d (pid %d) waits for a debugger: gdb -p %d  (then: continue)\n", me, (int)getpid(), (int)getpid());
	for (;;) {
		char line[256];
		FILE *f = fopen("/proc/self/status", "r");
		int traced = 0;
		while (f && fgets(line, sizeof line, f))
			if (strncmp(line, "TracerPid:", 10) == 0)
				traced = atoi(line + 10) != 0;
		if (f)
			fclose(f);
		if (traced)
			return;
		sleep(1);
	}
}

static void initialized(int rank)
{
	const char *gdb = mpivet_conf(MPIVET_CONF_GDB);
	if (gdb && atoi(gdb) >= 0 && atoi(gdb) == rank)
		wait_for_gdb(rank);
}

static const struct mpivet_service service = {.initialized = initialized};

__attribute__((constructor(MPIVET_SERVICE_PRIORITY))) static void gdb_register(void) { mpivet_register(&service); }
