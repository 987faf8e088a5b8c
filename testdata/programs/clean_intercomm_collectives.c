/* Every collective the standard defines on an intercommunicator (MPI 4.0
 * §6.2.2), between a group of one rank (world rank 0) and a group of the
 * other three: roots given as MPI_ROOT and MPI_PROC_NULL in the root's
 * group and as the root's rank in the other, and counts that differ
 * between the groups as the standard has them (each group's
 * MPI_Reduce_scatter counts cover its own ranks). The groups call the
 * collectives in the same order, each with its own arguments: nothing to
 * compare across them but the calls. One rank computes for 2 s before
 * the first barrier, while the others wait in it: a stall, not a
 * deadlock, in both groups' view. Rank 0 prints a checksum of every
 * result; the output must be a native run's.
 * mpivet: np=4 verdict=ok sameoutput=1
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	int rank, size, lrank, lsize, rsize, color, sum = 0;
	int s[64], r[64], sc[16], sd[16], rc[16], rd[16];
	MPI_Comm half, inter, dup;
	MPI_Request q;
	MPI_Datatype st[16], rt[16];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	color = rank == 0 ? 0 : 1;
	MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
	MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, color ? 0 : 1, 7, &inter);
	MPI_Comm_dup(inter, &dup);
	MPI_Comm_rank(inter, &lrank);
	MPI_Comm_size(inter, &lsize);
	MPI_Comm_remote_size(inter, &rsize);
	for (int i = 0; i < 64; i++)
		s[i] = rank * 100 + i, r[i] = 0;
	for (int i = 0; i < 16; i++)
		sc[i] = rc[i] = 1, sd[i] = rd[i] = i, st[i] = rt[i] = MPI_INT;
	if (rank == 3)
		sleep(2); /* a slow member: the others wait in the barrier, no deadlock */
	MPI_Barrier(inter);
	/* rooted: group 0's one rank is the root */
	int root = color == 0 ? MPI_ROOT : 0;
	MPI_Bcast(s, 2, MPI_INT, root, inter);
	MPI_Gather(s, 1, MPI_INT, r, 1, MPI_INT, root, inter);
	sum += r[0] + r[rsize - 1];
	MPI_Gatherv(s, 1, MPI_INT, r, rc, rd, MPI_INT, root, inter);
	MPI_Scatter(s, 1, MPI_INT, r, 1, MPI_INT, root, inter);
	sum += r[0];
	MPI_Scatterv(s, sc, sd, MPI_INT, r, 1, MPI_INT, root, inter);
	MPI_Reduce(s, r, 3, MPI_INT, MPI_SUM, root, inter);
	sum += r[2];
	/* group 1 roots, rank 1 of world (local rank 0 of group 1) */
	root = color == 1 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
	MPI_Bcast(r, 4, MPI_INT, root, inter);
	MPI_Reduce(s, r, 1, MPI_INT, MPI_MAX, root, inter);
	sum += color == 1 && lrank == 0 ? r[0] : 0;
	/* all-to-all kinds: each group gives the other what it expects */
	MPI_Allgather(s, 1, MPI_INT, r, 1, MPI_INT, inter);
	sum += r[rsize - 1];
	MPI_Allgatherv(s, 1, MPI_INT, r, rc, rd, MPI_INT, inter);
	MPI_Alltoall(s, 1, MPI_INT, r, 1, MPI_INT, inter);
	sum += r[0];
	MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, inter);
	MPI_Alltoallw(s, sc, sd, st, r, rc, rd, rt, inter);
	MPI_Allreduce(s, r, 2, MPI_INT, MPI_SUM, inter);
	sum += r[1];
	/* reduce-scatter: each group's counts are over its own ranks, and
	 * both groups reduce vectors of the same length, 6 (MPI 4.0 6.10.1):
	 * the one rank of group 0 takes 6, the three of group 1 2 each */
	for (int i = 0; i < lsize; i++)
		rc[i] = 6 / lsize;
	MPI_Reduce_scatter(s, r, rc, MPI_INT, MPI_SUM, inter);
	sum += r[1];
	MPI_Reduce_scatter_block(s, r, 6 / lsize, MPI_INT, MPI_SUM, inter);
	sum += r[0];
	/* nonblocking, on a duplicate */
	MPI_Iallreduce(s, r, 2, MPI_INT, MPI_SUM, dup, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Ibcast(r, 1, MPI_INT, color == 0 ? MPI_ROOT : 0, dup, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Ibarrier(dup, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	int all = 0;
	MPI_Reduce(&sum, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("checksum %d\n", all);
	MPI_Comm_free(&dup);
	MPI_Comm_free(&inter);
	MPI_Comm_free(&half);
	MPI_Finalize();
	return 0;
}
