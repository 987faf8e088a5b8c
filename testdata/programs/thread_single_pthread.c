/* Plain MPI_Init (MPI_THREAD_SINGLE) in a program with a thread: rank 0's
 * helper thread sends to rank 1 while the main thread waits to join it.
 * The threads never call MPI at once, but only the main thread may call
 * MPI under MPI_THREAD_SINGLE: the send is reported at its line.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static void *helper(void *arg)
{
	int x = 42;
	(void)arg;
	MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD); // want "thread-level"
	return NULL;
}

int main(int argc, char **argv)
{
	int rank, x = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		pthread_t t;
		pthread_create(&t, NULL, helper, NULL);
		pthread_join(t, NULL);
	} else {
		MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		printf("got %d\n", x);
	}
	MPI_Finalize();
	return 0;
}
