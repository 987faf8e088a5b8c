/* A collective that one member never reaches, while another rank keeps
 * running (3 ranks): rank 2 polls for requests until rank 0 tells it to
 * stop; rank 0 enters an MPI_Allreduce on the pair's communicator and
 * sends rank 1 its go only after it, while rank 1 waits for that go before
 * its MPI_Allreduce. Reported as soon as they stall.
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
	if (rank == 1)
		MPI_Recv(&y, 1, MPI_INT, 0, 0, pair, MPI_STATUS_IGNORE); // want "deadlock"
	MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, pair); // want "deadlock"
	if (rank == 0)
		MPI_Send(&x, 1, MPI_INT, 1, 0, pair);
	if (rank == 0)
		MPI_Send(&stop, 1, MPI_INT, 2, 9, MPI_COMM_WORLD);
	free(buf);
	MPI_Comm_free(&pair);
	MPI_Finalize();
	return 0;
}
