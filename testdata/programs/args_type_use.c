/* Derived datatypes used against the standard's rules, under
 * MPI_ERRORS_RETURN so the run goes on past each: a type never committed
 * given to a send, a broadcast and a one-sided put (each reported where it
 * is used, with the line that made it), and types whose entries overlap
 * given to receives (MPI 4.0 §5.1: erroneous even where the message is
 * short) and to a one-sided put's target (§12.3): an
 * hindexed type with overlapping blocks, a vector whose stride is shorter
 * than its blocks, a resized type whose copies overlap from the second on.
 * The same overlapping type used to send is fine, and is not reported.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, buf[64] = {0}, lens[2] = {4, 4};
	MPI_Aint disps[2] = {0, 8}; /* the second block starts inside the first */
	MPI_Datatype raw, twice, shingle, tight, pair;
	MPI_Win win;
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int peer = 1 - rank;
	MPI_Type_vector(2, 1, 2, MPI_INT, &raw); /* never committed */
	MPI_Send(buf, 1, raw, MPI_PROC_NULL, 0, MPI_COMM_WORLD); // want "invalid-argument" "mpi-error"
	MPI_Bcast(buf, 1, raw, 0, MPI_COMM_WORLD); // want "invalid-argument" "mpi-error"
	MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
	MPI_Win_fence(0, win);
	MPI_Put(buf, 1, raw, peer, 0, 2, MPI_INT, win); // want "invalid-argument" "mpi-error"
	MPI_Win_fence(0, win);
	MPI_Type_free(&raw);

	MPI_Type_create_hindexed(2, lens, disps, MPI_INT, &twice);
	MPI_Type_vector(3, 4, 2, MPI_INT, &shingle); /* stride 2 < block 4 */
	MPI_Type_contiguous(2, MPI_INT, &pair);
	MPI_Type_create_resized(pair, 0, sizeof(int), &tight); /* extent 4, span 8 */
	MPI_Type_commit(&twice);
	MPI_Type_commit(&shingle);
	MPI_Type_commit(&tight);
	if (rank == 0) {
		MPI_Send(buf, 1, twice, 1, 1, MPI_COMM_WORLD); /* sends may overlap */
		MPI_Send(buf, 1, shingle, 1, 2, MPI_COMM_WORLD);
		MPI_Send(buf, 2, tight, 1, 3, MPI_COMM_WORLD);
		MPI_Send(buf, 1, tight, 1, 4, MPI_COMM_WORLD);
	} else {
		MPI_Request req;
		MPI_Recv(buf, 1, twice, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "invalid-argument"
		MPI_Irecv(buf, 1, shingle, 0, 2, MPI_COMM_WORLD, &req); // want "invalid-argument"
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		MPI_Recv(buf, 2, tight, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "invalid-argument"
		MPI_Recv(buf, 1, tight, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* one copy: no byte twice */
	}
	MPI_Win_fence(0, win);
	MPI_Put(buf + 32, 16, MPI_INT, peer, 0, 1, shingle, win); // want "invalid-argument"
	MPI_Win_fence(0, win);
	MPI_Win_free(&win);
	MPI_Type_free(&twice);
	MPI_Type_free(&shingle);
	MPI_Type_free(&tight);
	MPI_Type_free(&pair);
	MPI_Finalize();
	return 0;
}
