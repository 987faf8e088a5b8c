/* MPI_DATATYPE_NULL (and NULL buffers) wherever the standard says an
 * argument is not significant: the origin of MPI_Get_accumulate,
 * MPI_Rget_accumulate and MPI_Fetch_and_op with MPI_NO_OP (MPI 4.0
 * §12.3.4), the receive side of MPI_Gather and the send side of MPI_Scatter
 * on the ranks that are not the root, the receive buffer of MPI_Reduce
 * off the root (§6.5, §6.6, §6.9). Rank 0 prints what every rank got;
 * the output must be a native run's.
 * mpivet: np=2 verdict=ok sameoutput=1
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, peer, win_mem[4], res[4] = {-1, -1, -1, -1}, b[4], all[8];
	MPI_Win win;
	MPI_Request rq;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	peer = 1 - rank;
	for (int i = 0; i < 4; i++)
		win_mem[i] = rank * 10 + i, b[i] = rank * 100 + i;
	MPI_Win_create(win_mem, sizeof win_mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_fence(0, win);
	MPI_Get_accumulate(NULL, 1, MPI_DATATYPE_NULL, &res[0], 1, MPI_INT, peer, 2, 1, MPI_INT, MPI_NO_OP, win);
	MPI_Win_fence(0, win);
	MPI_Win_lock_all(0, win);
	MPI_Rget_accumulate(NULL, 0, MPI_DATATYPE_NULL, &res[1], 1, MPI_INT, peer, 1, 1, MPI_INT, MPI_NO_OP, win, &rq);
	MPI_Wait(&rq, MPI_STATUS_IGNORE);
	MPI_Fetch_and_op(NULL, &res[2], MPI_INT, peer, 3, MPI_NO_OP, win);
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_free(&win);
	if (rank == 0)
		MPI_Gather(b, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
	else
		MPI_Gather(b, 1, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD);
	if (rank == 0)
		MPI_Scatter(all, 1, MPI_INT, &res[3], 1, MPI_INT, 0, MPI_COMM_WORLD);
	else
		MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, &res[3], 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Reduce(res, rank == 0 ? b : NULL, 4, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
	MPI_Gather(res, 4, MPI_INT, all, 4, MPI_INT, 0, MPI_COMM_WORLD);
	if (rank == 0)
		for (int i = 0; i < 8; i++)
			printf("%d%c", all[i], i == 7 ? '\n' : ' ');
	if (rank == 0)
		printf("max %d %d %d %d\n", b[0], b[1], b[2], b[3]);
	MPI_Finalize();
	return 0;
}
