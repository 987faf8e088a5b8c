/* The twin of clean_sendrecv_stall.c with a real deadlock: rank 0 computes
 * for 2.5 s, then its Sendrecv receives from rank 2 with a tag rank 2 does
 * not send. Rank 2's Sendrecv completes (its eager message waits at rank 0
 * unreceived) and it goes on to the Allreduce, which waits for rank 0, which
 * waits for rank 2: a deadlock whatever the buffering. It must not be
 * reported while rank 0 computes (ranks 1 and 2 wait for it then), but once
 * rank 0 is in its Sendrecv.
 * mpivet: np=3 verdict=error
 */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, size, out, in = -1, sum;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	out = rank;
	if (rank == 0)
		usleep(2500000);
	MPI_Sendrecv(&out, 1, MPI_INT, next, 0, &in, 1, MPI_INT, prev, rank == 0 ? 1 : 0, MPI_COMM_WORLD, // want "deadlock"
		     MPI_STATUS_IGNORE);
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); // want "deadlock"
	MPI_Finalize();
	return 0;
}
