/* MPI_THREAD_MULTIPLE asked for, MPI called from the main thread only,
 * while a second thread computes without calling MPI: the wildcard
 * receives are explored (both matches), and neither order is an error.
 * mpivet: np=3 verdict=ok interleavings=2
 */
#include <mpi.h>
#include <pthread.h>
#include <unistd.h>

static volatile double sink;

static void *compute(void *arg)
{
	(void)arg;
	double s = 0;
	for (int i = 0; i < 1000000; i++)
		s += i * 0.5;
	sink = s;
	return NULL;
}

int main(int argc, char **argv)
{
	int rank, provided, x = 0, sum = 0;
	pthread_t t;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	pthread_create(&t, NULL, compute, NULL);
	if (rank == 0) {
		for (int i = 0; i < 2; i++) {
			MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			sum += x;
		}
	} else {
		if (rank == 2)
			usleep(100000);
		MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
	}
	pthread_join(t, NULL);
	MPI_Finalize();
	return sum == 3 || rank != 0 ? 0 : 1;
}
