/* Collectives in a different order on two communicators, one made by
 * MPI_Comm_idup, while another rank keeps running (3 ranks): rank 2 polls
 * for requests until rank 0 tells it to stop; rank 0 reduces on the
 * duplicate first, rank 1 on the pair's communicator first. The layer
 * cannot ask the MPI who the members of a communicator from
 * MPI_Comm_idup are before its request completes: they are the
 * duplicated one's. Reported as soon as the two stall.
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
	int rank, n = 1 << 20, x = 1, y = 0, stop = 1;
	int *buf;
	MPI_Comm pair;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_split(MPI_COMM_WORLD, rank == 2, rank, &pair);
	if (rank == 2) {
		serve();
		MPI_Finalize();
		return 0;
	}
	buf = calloc(n, sizeof(int));
	MPI_Comm dup;
	MPI_Request rq;
	MPI_Comm_idup(pair, &dup, &rq);
	MPI_Wait(&rq, MPI_STATUS_IGNORE);
	if (rank == 0) {
		MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, dup); // want "deadlock"
		MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, pair);
	} else {
		MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, pair); // want "deadlock"
		MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, dup);
	}
	MPI_Comm_free(&dup);
	if (rank == 0)
		MPI_Send(&stop, 1, MPI_INT, 2, 9, MPI_COMM_WORLD);
	free(buf);
	MPI_Comm_free(&pair);
	MPI_Finalize();
	return 0;
}
