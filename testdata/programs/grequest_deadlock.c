/* A generalized request is completed by the program, with
 * MPI_Grequest_complete: rank 0 starts one and waits for it, but no thread
 * of it ever completes it. Its wait can never return, and rank 1, in
 * MPI_Finalize, waits for rank 0: a deadlock.
 * mpivet: np=2 verdict=error timeout=60s
 */
#include <mpi.h>
#include <stddef.h>

static int query(void *extra, MPI_Status *st)
{
	(void)extra;
	MPI_Status_set_elements(st, MPI_BYTE, 0);
	MPI_Status_set_cancelled(st, 0);
	st->MPI_SOURCE = MPI_UNDEFINED;
	st->MPI_TAG = MPI_UNDEFINED;
	return MPI_SUCCESS;
}

static int release(void *extra)
{
	(void)extra;
	return MPI_SUCCESS;
}

static int cancel(void *extra, int complete)
{
	(void)extra, (void)complete;
	return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
	int rank;
	MPI_Request r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Grequest_start(query, release, cancel, NULL, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE); // want "deadlock"
	}
	MPI_Finalize(); // want "deadlock"
	return 0;
}
