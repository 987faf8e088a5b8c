/* Dynamic processes and a deadlock: the two ranks spawn a process of this
 * program, then each receives from the other before sending anything. The
 * spawned process waits for rank 0's message, which never comes. The ranks'
 * deadlock is found as in any program; the spawned process, which mpivet
 * does not check, ends with the run (no process is left behind).
 * mpivet: np=2 verdict=error mpi=openmpi note=MPI_Comm_spawn
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	MPI_Comm parent, inter;
	int rank, v = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_get_parent(&parent);
	if (parent == MPI_COMM_NULL) {
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
		MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
		MPI_Recv(&v, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "deadlock"
		MPI_Send(&v, 1, MPI_INT, 0, 0, inter);
		MPI_Comm_disconnect(&inter);
	} else {
		MPI_Recv(&v, 1, MPI_INT, 0, 0, parent, MPI_STATUS_IGNORE);
		MPI_Comm_disconnect(&parent);
	}
	MPI_Finalize();
	return 0;
}
