/* The cost of one MPI call, for the argument checks: a loop of MPI_Send
 * to MPI_PROC_NULL, or of MPI_Allreduce of one double on MPI_COMM_SELF,
 * timed in the thread's CPU time, which the other work of a loaded
 * machine does not change (a one-rank loop of 40 ms spans many of the
 * scheduler's time slices, its wall time their number).
 * Usage: calls send|allreduce [iterations]. Prints: RESULT call_ns=<CPU time per call>
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	int allreduce = argc > 1 && strcmp(argv[1], "allreduce") == 0;
	int iters = argc > 2 ? atoi(argv[2]) : 20000;
	double x = 1, y = 0;
	MPI_Init(&argc, &argv);
	double t0 = 0;
	for (int i = 0; i < iters / 10 + iters; i++) {
		if (i == iters / 10)
			t0 = cpu_seconds();
		if (allreduce)
			MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF);
		else
			MPI_Send(&x, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
	}
	double t = cpu_seconds() - t0;
	printf("RESULT call_ns=%.2f\n", t / iters * 1e9);
	MPI_Finalize();
	return 0;
}
