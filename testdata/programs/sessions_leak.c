/* The sessions model (MPI_Session_init, never MPI_Init), with leaks: the
 * group of the process set and the communicator made from it are never
 * freed before the session ends (mpivet checks, at the program's last
 * MPI_Session_finalize, what MPI_Finalize would).
 * mpivet: np=2 verdict=error mpi=mpich
 */
#include <mpi.h>
#include <stdio.h>

int main(void)
{
	MPI_Session s;
	MPI_Group g;
	MPI_Comm c;
	int rank, sum = 0;
	MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
	MPI_Group_from_session_pset(s, "mpi://WORLD", &g); // want "resource-leak"
	MPI_Comm_create_from_group(g, "org.mpivet.sessions_leak", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c); // want "resource-leak"
	MPI_Comm_rank(c, &rank);
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c);
	if (rank == 0)
		printf("sum %d\n", sum);
	MPI_Session_finalize(&s);
	return 0;
}
