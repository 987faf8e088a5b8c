/* Dynamic processes: the two ranks spawn two more processes of this
 * program (MPI_Comm_spawn), both sides merge the intercommunicator into
 * one intracommunicator, rank 0 of it collects every other's number with
 * wildcard receives, all reduce, and both sides free what they made
 * (MPI_Comm_get_parent's intercommunicator needs no free: the children
 * disconnect it, which the parents' MPI_Comm_disconnect meets). The
 * spawned processes run without mpivet's layer: the note says they were
 * not checked, and the wildcard receives' other matches are not explored;
 * the zero-buffering run (a second run: the first cannot be replayed
 * offline without the clocks) adds no barrier before the collective on the
 * merged communicator, which the spawned processes would never join.
 * mpivet: np=2 verdict=ok mpi=openmpi note=MPI_Comm_spawn buffering=run sameoutput=1
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	MPI_Comm parent, inter = MPI_COMM_NULL, merged;
	int rank, size, v, sum = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_get_parent(&parent);
	if (parent == MPI_COMM_NULL) {
		MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
		MPI_Intercomm_merge(inter, 0, &merged);
	} else {
		MPI_Intercomm_merge(parent, 1, &merged);
	}
	MPI_Comm_rank(merged, &rank);
	MPI_Comm_size(merged, &size);
	if (rank == 0) {
		for (int i = 1; i < size; i++) {
			MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, merged, MPI_STATUS_IGNORE);
			sum += v;
		}
	} else {
		MPI_Send(&rank, 1, MPI_INT, 0, 0, merged);
	}
	MPI_Allreduce(&rank, &v, 1, MPI_INT, MPI_SUM, merged);
	if (rank == 0)
		printf("%d processes, sum %d %d\n", size, sum, v);
	MPI_Comm_free(&merged);
	if (parent == MPI_COMM_NULL)
		MPI_Comm_disconnect(&inter);
	else
		MPI_Comm_disconnect(&parent);
	MPI_Finalize();
	return 0;
}
