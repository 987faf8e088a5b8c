/* The MPI 4.0 sessions model: MPI starts with MPI_Session_init, never
 * MPI_Init; the communicator is made from the group of the process set
 * mpi://WORLD. Rank 0 receives the others' numbers with wildcard receives,
 * in either order (both interleavings are explored: the messages carry
 * their clocks on this communicator too), then all reduce; the program
 * frees its group and communicator before it ends its session.
 * mpivet: np=3 verdict=ok mpi=mpich interleavings=2
 */
#include <mpi.h>
#include <stdio.h>

int main(void)
{
	MPI_Session s;
	MPI_Group g;
	MPI_Comm c;
	int rank, size, v, sum = 0;
	MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
	MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
	MPI_Comm_create_from_group(g, "org.mpivet.clean_sessions", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
	MPI_Group_free(&g);
	MPI_Comm_rank(c, &rank);
	MPI_Comm_size(c, &size);
	if (rank == 0) {
		for (int i = 1; i < size; i++) {
			MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, c, MPI_STATUS_IGNORE);
			sum += v;
		}
	} else {
		MPI_Send(&rank, 1, MPI_INT, 0, 0, c);
	}
	MPI_Allreduce(&rank, &v, 1, MPI_INT, MPI_SUM, c);
	if (rank == 0)
		printf("sum %d %d\n", sum, v);
	MPI_Comm_free(&c);
	MPI_Session_finalize(&s);
	return 0;
}
