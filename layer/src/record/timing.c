/*
 * Start-up and shutdown timestamps of a rank, for measuring where a run's
 * wall time goes (mpivet's MPIVET_TIMING, docs/design/parallel-replays.md,
 * "Where a replay's time goes"). Off unless the environment has MPIVET_TIMING: then the rank
 * appends "PHASE NS CPU" lines (the wall clock, CLOCK_REALTIME, comparable
 * with the driver's on the same host, and the process's CPU time so far,
 * both in ns) to <dir>/p.<host>.<pid>.time at its
 * constructor's start and end (the layer's own start-up), when MPI_Init
 * has returned and when the layer's work after it is done, and at exit.
 * A few system calls per rank and run: never on the path of a call.
 */
#define _GNU_SOURCE
#include "create.h"
#include "internal.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int timing_fd = -1;

/* mpivet_timing_open opens the rank's timing file when MPIVET_TIMING is
 * set; called first thing in the constructor, with the run directory. */
void mpivet_timing_open(const char *dir, const char *host)
{
	const char *t = getenv("MPIVET_TIMING");
	if (!t || !*t)
		return;
	char path[4400];
	snprintf(path, sizeof path, "%s/p.%s.%d.time", dir, host, (int)getpid());
	timing_fd = mpivet_create(path, O_WRONLY | O_APPEND);
}

/* mpivet_stamp notes that the rank reached phase now. */
void mpivet_stamp(const char *phase)
{
	if (timing_fd < 0)
		return;
	struct timespec now, cpu;
	clock_gettime(CLOCK_REALTIME, &now);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
	char line[128];
	int n = snprintf(line, sizeof line, "%s %lld %lld\n", phase, (long long)now.tv_sec * 1000000000LL + now.tv_nsec,
			 (long long)cpu.tv_sec * 1000000000LL + cpu.tv_nsec);
	if (write(timing_fd, line, n) != n)
		timing_fd = -1;
}

void mpivet_stamp_count(const char *name, uint64_t n)
{
	if (timing_fd < 0)
		return;
	char line[128];
	int k = snprintf(line, sizeof line, "%s %llu\n", name, (unsigned long long)n);
	if (write(timing_fd, line, k) != k)
		timing_fd = -1;
}

__attribute__((destructor)) static void stamp_exit(void)
{
	mpivet_stamp("exit");
}
