/* The sessions model (MPI_Session_init, never MPI_Init), with the deadlock
 * of seed 000's Fig. 2.7 on a communicator made from the group of the
 * process set mpi://WORLD: rank 0 receives from anyone, then from rank 2.
 * When the wildcard receive takes rank 2's message, the second receive
 * waits forever. Rank 2 sends late, so the native run usually matches rank
 * 1, and a replay, forced by the clocks these messages carry, finds the
 * deadlock. The other ranks wait in the end of MPI, which mpivet runs at
 * the program's MPI_Session_finalize.
 * mpivet: np=3 verdict=error mpi=mpich
 */
#include <mpi.h>
#include <unistd.h>

int main(void)
{
	MPI_Session s;
	MPI_Group g;
	MPI_Comm c;
	int rank, x = 0;
	MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
	MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
	MPI_Comm_create_from_group(g, "org.mpivet.sessions_deadlock", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
	MPI_Group_free(&g);
	MPI_Comm_rank(c, &rank);
	if (rank == 0) {
		MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, c, MPI_STATUS_IGNORE);
		MPI_Recv(&x, 1, MPI_INT, 2, 0, c, MPI_STATUS_IGNORE); // want "deadlock"
	} else {
		if (rank == 2)
			usleep(200000);
		MPI_Send(&rank, 1, MPI_INT, 0, 0, c);
	}
	MPI_Comm_free(&c);
	MPI_Session_finalize(&s); // want "deadlock"
	return 0;
}
