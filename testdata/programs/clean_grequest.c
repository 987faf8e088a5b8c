/* Generalized requests completed by the program: each rank starts one,
 * does the work it stands for, completes it with MPI_Grequest_complete and
 * waits for it (the wait returns at once); a second one is completed and
 * tested until done. Each is completed and freed by its completion call: no
 * leak, no deadlock.
 * mpivet: np=2 verdict=ok
 */
#include <mpi.h>
#include <stdio.h>

static int query(void *extra, MPI_Status *st)
{
	MPI_Status_set_elements(st, MPI_INT, 1);
	MPI_Status_set_cancelled(st, 0);
	st->MPI_SOURCE = MPI_UNDEFINED;
	st->MPI_TAG = *(int *)extra;
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
	int rank, work = 0, flag = 0;
	MPI_Request r;
	MPI_Status st;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Grequest_start(query, release, cancel, &work, &r);
	work = 7 + rank;
	MPI_Grequest_complete(r);
	MPI_Wait(&r, &st);
	if (st.MPI_TAG != 7 + rank)
		printf("rank %d: tag %d\n", rank, st.MPI_TAG);
	MPI_Grequest_start(query, release, cancel, &work, &r);
	MPI_Grequest_complete(r);
	while (!flag)
		MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
