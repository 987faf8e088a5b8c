/* Dynamic processes, with a leak: each rank's part in MPI_Comm_spawn_multiple
 * gives it an intercommunicator to the spawned processes, which the program
 * must free (MPI_Comm_disconnect or MPI_Comm_free) and never does. The
 * spawned process exchanges a message with each parent over the
 * intercommunicator, frees its side and ends. (MPI_Comm_get_parent's
 * intercommunicator need not be freed.)
 * mpivet: np=2 verdict=error mpi=openmpi note=MPI_Comm_spawn_multiple
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	MPI_Comm parent, inter;
	int v = 0, n;
	MPI_Init(&argc, &argv);
	MPI_Comm_get_parent(&parent);
	if (parent == MPI_COMM_NULL) {
		char *cmds[1] = {argv[0]};
		int procs[1] = {1};
		MPI_Info infos[1] = {MPI_INFO_NULL};
		int rank;
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
		MPI_Comm_spawn_multiple(1, cmds, MPI_ARGVS_NULL, procs, infos, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE); // want "resource-leak"
		MPI_Send(&rank, 1, MPI_INT, 0, 0, inter);
		MPI_Recv(&v, 1, MPI_INT, 0, 1, inter, MPI_STATUS_IGNORE);
	} else {
		MPI_Comm_remote_size(parent, &n);
		for (int i = 0; i < n; i++) {
			MPI_Recv(&v, 1, MPI_INT, i, 0, parent, MPI_STATUS_IGNORE);
			MPI_Send(&v, 1, MPI_INT, i, 1, parent);
		}
		MPI_Comm_free(&parent);
	}
	MPI_Finalize();
	return 0;
}
