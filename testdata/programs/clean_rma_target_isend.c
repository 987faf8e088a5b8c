/* A correct program that sends from its window memory while an exposure
 * epoch is open: each rank MPI_Isends 32 KiB of its window (a message
 * large enough for the shared-memory transports to copy it with the
 * receiver's process_vm_readv, from the sender's pages, while the sender
 * computes outside MPI) and reads the rest of the window, then waits.
 * mpivet protects a window's pages during exposure epochs; the pages of a
 * pending send a peer's kernel may read must stay readable, or the copy
 * fails (EFAULT): Open MPI's vader printed "Read -1, expected 32768,
 * errno = 14" and fell back before mpivet kept them readable; UCX aborts.
 * Nothing to report, the received values are checked, and the output must
 * be a native run's.
 * mpivet: np=2 verdict=ok sameoutput=1
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#define N 8192 /* ints: 32 KiB */

int main(int argc, char **argv)
{
	int rank, *base, in[N], bad = 0;
	MPI_Win win;
	MPI_Request r[2];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Win_allocate(3 * N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
	for (int i = 0; i < 3 * N; i++)
		base[i] = rank * 100000 + i;
	MPI_Win_fence(0, win);
	int other = 1 - rank;
	MPI_Irecv(in, N, MPI_INT, other, 0, MPI_COMM_WORLD, &r[0]);
	MPI_Isend(base + N, N, MPI_INT, other, 0, MPI_COMM_WORLD, &r[1]);
	long sum = 0;
	for (int i = 2 * N; i < 3 * N; i++) /* other bytes of the window: nobody accesses them remotely */
		sum += base[i];
	usleep(100000); /* the receiver copies now, from this rank's pages */
	MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
	MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
	for (int i = 0; i < N; i++)
		bad += in[i] != other * 100000 + N + i;
	int allbad = 0;
	MPI_Reduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("%d wrong\n", allbad);
	else if (sum < 0)
		printf("overflow\n");
	MPI_Win_free(&win);
	MPI_Finalize();
	return bad != 0;
}
