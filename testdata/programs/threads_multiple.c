/* MPI_THREAD_MULTIPLE: two threads per rank exchange with the other rank on
 * their own tags, each completing its requests, except that thread 1 leaves
 * one receive request unfinished.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <pthread.h>

static int rank;

static void *worker(void *arg)
{
	int id = *(int *)arg, peer = 1 - rank, out = id, in[2];
	MPI_Request r[2], stray;
	for (int i = 0; i < 50; i++) {
		MPI_Irecv(&in[0], 1, MPI_INT, peer, id, MPI_COMM_WORLD, &r[0]);
		MPI_Isend(&out, 1, MPI_INT, peer, id, MPI_COMM_WORLD, &r[1]);
		MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
	}
	if (id == 1)
		MPI_Irecv(&in[1], 1, MPI_INT, peer, 99, MPI_COMM_WORLD, &stray); // want "resource-leak" "request-lifecycle"
	return NULL;
}

int main(int argc, char **argv)
{
	int provided, ids[2] = {0, 1};
	pthread_t t[2];
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	if (provided < MPI_THREAD_MULTIPLE) {
		MPI_Finalize(); /* the MPI cannot run this test; nothing to check */
		return 0;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, &ids[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
