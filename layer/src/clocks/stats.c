/*
 * Scale statistics: with MPIVET_SCALE_STATS=1 in its environment, each rank
 * prints one line on stderr at MPI_Finalize with what the clock protocol
 * sent (piggybacks of point-to-point messages, clock words of collectives)
 * and the rank's peak resident memory (VmHWM), for the scaling benchmark
 * (go run ./bench -scale). Counting is two additions per piggyback; the
 * line is printed only when asked.
 */
#define _GNU_SOURCE
#include "protocol.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t ck_pb_msgs, ck_pb_bytes, ck_coll_syncs, ck_coll_bytes;

/* vmhwm is the process's peak resident set in KiB, from /proc (0 if unknown). */
static long vmhwm(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "VmHWM:", 6) == 0) {
			kb = strtol(line + 6, NULL, 10);
			break;
		}
	fclose(f);
	return kb;
}

/* ck_print_stats prints the rank's line, if MPIVET_SCALE_STATS=1 asks. */
void ck_print_stats(void)
{
	const char *on = getenv("MPIVET_SCALE_STATS");
	if (!on || strcmp(on, "1") != 0)
		return;
	fprintf(stderr, "mpivet-stats rank=%d np=%d mode=%d clock_words=%d pb_msgs=%llu pb_bytes=%llu coll_syncs=%llu coll_bytes=%llu vmhwm_kb=%ld\n",
		me, np, mode, pbn, (unsigned long long)ck_pb_msgs, (unsigned long long)ck_pb_bytes,
		(unsigned long long)ck_coll_syncs, (unsigned long long)ck_coll_bytes, vmhwm());
	fflush(stderr);
}
