/* Messages that no receive ever matches: an eager MPI_Send, an MPI_Bsend and
 * an MPI_Isend that was waited all complete at the sender, and wait at rank
 * 1 until MPI_Finalize; a message on a duplicated communicator waits there
 * until rank 1 frees it. Each is reported at its send's line. A send to
 * MPI_PROC_NULL and a receive from it transfer nothing: no finding. Rank 1
 * does receive one message from rank 0 (tag 9), which is no finding either.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, x[4] = {1, 2, 3, 4}, y[4];
	MPI_Comm dup;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Send(x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
	MPI_Recv(y, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (rank == 0) {
		int size = 1024 + MPI_BSEND_OVERHEAD;
		void *buf = malloc(size);
		MPI_Request req;
		MPI_Buffer_attach(buf, size);
		MPI_Send(x, 4, MPI_INT, 1, 1, MPI_COMM_WORLD); // want "unreceived-message"
		MPI_Bsend(x, 2, MPI_INT, 1, 2, MPI_COMM_WORLD); // want "unreceived-message"
		MPI_Isend(x, 3, MPI_INT, 1, 3, MPI_COMM_WORLD, &req); // want "unreceived-message"
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		MPI_Send(x, 1, MPI_INT, 1, 4, dup); // want "unreceived-message"
		MPI_Send(x, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Buffer_detach(&buf, &size);
		free(buf);
	} else {
		MPI_Recv(y, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	MPI_Comm_free(&dup);
	MPI_Finalize();
	return 0;
}
