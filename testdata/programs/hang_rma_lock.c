/* A lock held by a rank that then blocks, while another rank keeps running
 * (3 ranks): rank 2 polls for requests until told to stop; rank 0 takes an
 * exclusive lock on rank 1's part of a window and waits for a message from
 * rank 1 before releasing it; rank 1 asks for a shared lock on its own part
 * first, and sends only once it has it. Neither can go on: a deadlock,
 * reported as soon as they stall although rank 2 never blocks.
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
	int rank, buf[4] = {0}, v = 1, got = 0, stop = 1;
	MPI_Comm pair;
	MPI_Win win;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_split(MPI_COMM_WORLD, rank == 2, rank, &pair);
	if (rank == 2) {
		serve();
		MPI_Finalize();
		return 0;
	}
	MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, pair, &win);
	MPI_Barrier(pair);
	if (rank == 0) {
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win); // want "rma-epoch"
		MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
		MPI_Win_flush(1, win);
		MPI_Send(&v, 1, MPI_INT, 1, 0, pair);
		MPI_Recv(&got, 1, MPI_INT, 1, 1, pair, MPI_STATUS_IGNORE); // want "deadlock"
		MPI_Win_unlock(1, win);
		MPI_Send(&stop, 1, MPI_INT, 2, 9, MPI_COMM_WORLD);
	} else {
		MPI_Recv(&got, 1, MPI_INT, 0, 0, pair, MPI_STATUS_IGNORE);
		MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win); // want "deadlock"
		MPI_Get(&got, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
		MPI_Win_unlock(1, win);
		MPI_Send(&got, 1, MPI_INT, 0, 1, pair);
	}
	MPI_Win_free(&win);
	MPI_Comm_free(&pair);
	MPI_Finalize();
	return 0;
}
