/* Buffers in heap memory that look suspicious and are right: a buffer
 * inside a larger block (small and large), MPI_BOTTOM with a struct
 * datatype of absolute addresses in two blocks, a struct datatype over an
 * array of structs, MPI_IN_PLACE, zero counts with NULL buffers, a block
 * grown by realloc and then filled, memory from mmap, MPI_Alloc_mem and
 * MPI_Win_allocate (not heap blocks: nothing is said), an Allgatherv whose
 * displacements stay inside the block, a Get of exactly its block, an
 * MPI_Allgather into a global of exactly the ranks' blocks. The
 * twins of heap_overrun.c, heap_freed.c and heap_get_overrun.c: no finding,
 * also when the program is stripped of its symbols.
 * mpivet: np=2 verdict=ok strip=1
 */
#include <mpi.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int gathered[2 * 4]; /* a global of exactly the ranks' blocks */

struct particle {
	double x[3];
	int id;
};

static void interior_and_bottom(int rank, int peer)
{
	int *big = calloc(1000, sizeof(int)), *large = calloc(100000, sizeof(int));
	MPI_Sendrecv(big + 10, 490, MPI_INT, peer, 0, big + 500, 500, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Sendrecv(large + 1000, 40000, MPI_INT, peer, 1, large + 50000, 50000, MPI_INT, peer, 1, MPI_COMM_WORLD,
		     MPI_STATUS_IGNORE);
	double *a = calloc(10, sizeof(double)), *b = calloc(20, sizeof(double));
	MPI_Aint disp[2];
	MPI_Get_address(a, &disp[0]);
	MPI_Get_address(b, &disp[1]);
	int len[2] = {10, 20};
	MPI_Datatype types[2] = {MPI_DOUBLE, MPI_DOUBLE}, t;
	MPI_Type_create_struct(2, len, disp, types, &t);
	MPI_Type_commit(&t);
	MPI_Sendrecv(MPI_BOTTOM, 1, t, peer, 2, MPI_BOTTOM, 1, t, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Type_free(&t);
	free(a), free(b), free(big), free(large);
	(void)rank;
}

static void structs_and_in_place(int rank, int peer)
{
	struct particle *p = calloc(50, sizeof *p);
	int len[2] = {3, 1};
	MPI_Aint disp[2] = {offsetof(struct particle, x), offsetof(struct particle, id)};
	MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT}, t, rt;
	MPI_Type_create_struct(2, len, disp, types, &t);
	MPI_Type_create_resized(t, 0, sizeof *p, &rt);
	MPI_Type_commit(&rt);
	MPI_Sendrecv_replace(p, 50, rt, peer, 3, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Type_free(&rt);
	MPI_Type_free(&t);
	int *v = calloc(8, sizeof(int));
	MPI_Allreduce(MPI_IN_PLACE, v, 8, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	int *g = calloc(2 * 4, sizeof(int));
	MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, g, 4, MPI_INT, MPI_COMM_WORLD);
	MPI_Allgather(v, 4, MPI_INT, gathered, 4, MPI_INT, MPI_COMM_WORLD);
	MPI_Sendrecv(NULL, 0, MPI_INT, peer, 4, NULL, 0, MPI_INT, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	int counts[2] = {3, 2}, displs[2] = {0, 5}, *w = calloc(7, sizeof(int));
	MPI_Allgatherv(v, counts[rank], MPI_INT, w, counts, displs, MPI_INT, MPI_COMM_WORLD);
	free(w), free(g), free(v), free(p);
}

static void grown_and_mapped(int peer)
{
	int *r = malloc(4 * sizeof(int));
	r = realloc(r, 4000 * sizeof(int));
	memset(r, 0, 4000 * sizeof(int));
	MPI_Sendrecv(r, 2000, MPI_INT, peer, 5, r + 2000, 2000, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	free(r);
	int *m = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	MPI_Sendrecv(m, 1 << 13, MPI_INT, peer, 7, m + (1 << 13), 1 << 13, MPI_INT, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	munmap(m, 1 << 16);
	int *am;
	MPI_Alloc_mem(1 << 12, MPI_INFO_NULL, &am);
	MPI_Sendrecv(am, 1 << 9, MPI_INT, peer, 9, am + (1 << 9), 1 << 9, MPI_INT, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Free_mem(am);
}

static void one_sided(int peer)
{
	int *base, *mine = malloc(100 * sizeof(int));
	MPI_Win win;
	MPI_Win_allocate(100 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
	for (int i = 0; i < 100; i++)
		base[i] = i;
	MPI_Win_fence(0, win);
	MPI_Get(mine, 100, MPI_INT, peer, 0, 100, MPI_INT, win);
	MPI_Win_fence(0, win);
	MPI_Win_free(&win);
	free(mine);
}

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int peer = 1 - rank;
	interior_and_bottom(rank, peer);
	structs_and_in_place(rank, peer);
	grown_and_mapped(peer);
	one_sided(peer);
	MPI_Finalize();
	return 0;
}
