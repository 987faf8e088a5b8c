/* A thread of the program's own crashes (a write through a null pointer)
 * while the main thread is in MPI_Finalize: rank 1 enters it a second
 * later, so rank 0's waits for it. The thread never calls MPI. However
 * late, however far from MPI, a crash of the program's thread is the
 * program's failure, not the MPI library's (mpi-library-crash is only for
 * threads the library created: crash_in_library_thread.c).
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <pthread.h>
#include <unistd.h>

static volatile int finalizing;
static int *volatile nowhere;

static void *worker(void *arg)
{
	(void)arg;
	while (!finalizing)
		usleep(1000);
	usleep(200000);
	*nowhere = 42; // want "program-failure"
	return NULL;
}

int main(int argc, char **argv)
{
	int rank;
	pthread_t t;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		pthread_create(&t, NULL, worker, NULL);
	else
		sleep(1);
	finalizing = 1;
	MPI_Finalize();
	if (rank == 0)
		pthread_join(t, NULL);
	return 0;
}
