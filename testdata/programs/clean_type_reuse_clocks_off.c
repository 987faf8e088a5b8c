/* A datatype freed, and another one made that the MPI gives the same handle
 * (MPICH reuses its handle slots, Open MPI the memory of the object), under
 * --clocks=off. What the layer knows of the freed type must go with it: its
 * signature (rank 1 gives a Bcast 4 ints as the first type, then 2 ints as
 * the second, where rank 0 gives plain ints), and its byte map (rank 1
 * receives with the second type, a vector with a gap, and computes on the
 * gap while the receive is pending, bytes the first type covered).
 * mpivet: np=2 verdict=ok flags=--clocks=off
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	static int buf[64];
	MPI_Datatype first, second;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 1) {
		MPI_Type_contiguous(4, MPI_INT, &first);
		MPI_Type_commit(&first);
		MPI_Bcast(a, 1, first, 0, MPI_COMM_WORLD);
		MPI_Request r;
		MPI_Irecv(buf, 1, first, 0, 1, MPI_COMM_WORLD, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		MPI_Datatype old = first;
		MPI_Type_free(&first);
		MPI_Type_vector(2, 1, 4, MPI_INT, &second); /* ints 0 and 4 */
		MPI_Type_commit(&second);
		printf("handle reused: %d\n", old == second);
		MPI_Bcast(a, 1, second, 0, MPI_COMM_WORLD);
		MPI_Irecv(buf, 1, second, 0, 2, MPI_COMM_WORLD, &r);
		for (int i = 1; i < 4; i++)
			buf[i] = i; /* the gap: not part of the pending receive */
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		MPI_Type_free(&second);
	} else {
		MPI_Bcast(a, 4, MPI_INT, 0, MPI_COMM_WORLD);
		MPI_Send(a, 4, MPI_INT, 1, 1, MPI_COMM_WORLD);
		MPI_Bcast(a, 2, MPI_INT, 0, MPI_COMM_WORLD);
		MPI_Send(a, 2, MPI_INT, 1, 2, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
