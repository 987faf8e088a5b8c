/* A hang in one-sided synchronisation while another rank keeps running
 * (3 ranks): rank 2 serves requests, polling with MPI_Iprobe until rank 0
 * tells it to stop; ranks 0 and 1 work on a window, and rank 1 goes to a
 * barrier where rank 0 closes the epoch with a fence. Ranks 0 and 1 can
 * never return, whatever rank 2 does: a deadlock, reported as soon as
 * they stall. (Rank 2's polls kept the run from ever looking stalled, and
 * a rank in a fence waited for any rank that could act: only the time
 * limit ended it.)
 * mpivet: np=3 timeout=60s verdict=error
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* serve polls for requests until told to stop; a watchdog gives up after
 * 20 s (exit 3): mpivet must have ended the run long before, or the exit
 * is reported as a program failure, which no line here wants. */
static void serve(void)
{
	int flag = 0, stop = 0;
	double start = MPI_Wtime();
	MPI_Status st;
	while (!stop) {
		MPI_Iprobe(MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &flag, &st);
		if (flag)
			MPI_Recv(&stop, 1, MPI_INT, st.MPI_SOURCE, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		if (MPI_Wtime() - start > 20) {
			fprintf(stderr, "server: no stop request after 20 s, giving up\n");
			exit(3);
		}
	}
}

int main(int argc, char **argv)
{
	int rank, buf[4] = {0}, v = 1, stop = 1;
	MPI_Comm pair;
	MPI_Win win;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_split(MPI_COMM_WORLD, rank == 2, rank, &pair);
	if (rank == 2) {
		serve();
	} else {
		MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, pair, &win);
		MPI_Win_fence(0, win);
		MPI_Put(&v, 1, MPI_INT, 1 - rank, rank, 1, MPI_INT, win);
		if (rank == 0)
			MPI_Win_fence(0, win); // want "deadlock"
		else
			MPI_Barrier(pair); // want "deadlock"
		MPI_Win_free(&win);
		if (rank == 0)
			MPI_Send(&stop, 1, MPI_INT, 2, 9, MPI_COMM_WORLD);
	}
	MPI_Comm_free(&pair);
	MPI_Finalize();
	return 0;
}
