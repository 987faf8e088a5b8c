/* Rank 1 is killed with SIGKILL from outside its process, as the kernel's
 * OOM killer or a user's kill -9 would: here rank 0 sends it, once rank 1
 * waits in a barrier. Nothing in rank 1 is wrong, and mpivet names it, the
 * signal and that it came from outside; the run did not go to its end, so
 * the verdict is incomplete.
 * mpivet: np=2 verdict=incomplete
 */
#include <mpi.h>
#include <signal.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, pid;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	pid = getpid();
	if (rank == 1)
		MPI_Send(&pid, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		MPI_Recv(&pid, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		sleep(1); /* rank 1 is in the barrier by now */
		kill(pid, SIGKILL);
	}
	MPI_Barrier(MPI_COMM_WORLD); // want "rank-killed"
	MPI_Finalize();
	return 0;
}
