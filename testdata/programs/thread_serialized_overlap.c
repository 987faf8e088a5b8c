/* MPI_THREAD_SERIALIZED broken: on rank 0, one thread waits in MPI_Recv for
 * a reply that rank 1 sends only once it has the message rank 0's other
 * thread sends, so the two threads are inside MPI at once. The send is
 * reported at its line, with the receive the other thread was inside.
 * (thread_serialized_clean.c takes a lock around every call.)
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static volatile int receiving;
static int got = -1;

static void *receiver(void *arg)
{
	(void)arg;
	receiving = 1;
	MPI_Recv(&got, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "thread-level"
	return NULL;
}

static void *sender(void *arg)
{
	int x = 7;
	(void)arg;
	while (!receiving)
		;
	usleep(100000); /* the receiver is inside MPI_Recv by now */
	MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD); // want "thread-level"
	return NULL;
}

int main(int argc, char **argv)
{
	int provided, rank, x;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		pthread_t t[2];
		pthread_create(&t[0], NULL, receiver, NULL);
		pthread_create(&t[1], NULL, sender, NULL);
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		printf("got %d\n", got);
	} else {
		MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
