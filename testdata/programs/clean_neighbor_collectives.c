/* Correct neighbourhood collectives, blocking and nonblocking, on the three
 * kinds of topology: a non-periodic Cartesian grid (whose edge ranks have
 * MPI_PROC_NULL neighbours, whose blocks of the buffers the MPI does not
 * access: the ranks set them, as boundary conditions, during the
 * exchange), a graph and a distributed graph. While the nonblocking ones are
 * pending the ranks compute on other data in the same pages as their
 * buffers, and read their send buffers (legal since MPI 2.2); the data
 * received is used only after the Wait. Every rank gives matching types:
 * nothing to report.
 * mpivet: np=4 verdict=ok
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

struct page {
	int send[16];
	int other[16]; /* same page as both buffers */
	int recv[16];
	MPI_Aint sdispls[8], rdispls[8];
	int counts[8], displs[8];
	MPI_Datatype types[8];
};

static int exchange(MPI_Comm c, int deg, const int *edge, struct page *p, int rank)
{
	int s = 0;
	MPI_Request r;
	for (int i = 0; i < 16; i++)
		p->send[i] = rank * 100 + i, p->recv[i] = -1;
	for (int i = 0; i < deg; i++) {
		p->counts[i] = 1, p->displs[i] = i;
		p->sdispls[i] = p->rdispls[i] = (MPI_Aint)(i * sizeof(int));
		p->types[i] = MPI_INT;
	}
	/* blocking */
	MPI_Neighbor_allgather(p->send, 1, MPI_INT, p->recv, 1, MPI_INT, c);
	MPI_Neighbor_allgatherv(p->send, 1, MPI_INT, p->recv, p->counts, p->displs, MPI_INT, c);
	MPI_Neighbor_alltoall(p->send, 1, MPI_INT, p->recv, 1, MPI_INT, c);
	MPI_Neighbor_alltoallv(p->send, p->counts, p->displs, MPI_INT, p->recv, p->counts, p->displs, MPI_INT, c);
	MPI_Neighbor_alltoallw(p->send, p->counts, p->sdispls, p->types, p->recv, p->counts, p->rdispls, p->types, c);
	/* nonblocking, with work on the same pages while pending */
	for (int k = 0; k < 5; k++) {
		switch (k) {
		case 0:
			MPI_Ineighbor_allgather(p->send, 1, MPI_INT, p->recv, 1, MPI_INT, c, &r);
			break;
		case 1:
			MPI_Ineighbor_allgatherv(p->send, 1, MPI_INT, p->recv, p->counts, p->displs, MPI_INT, c, &r);
			break;
		case 2:
			MPI_Ineighbor_alltoall(p->send, 1, MPI_INT, p->recv, 1, MPI_INT, c, &r);
			break;
		case 3:
			MPI_Ineighbor_alltoallv(p->send, p->counts, p->displs, MPI_INT, p->recv, p->counts, p->displs, MPI_INT, c, &r);
			break;
		case 4:
			MPI_Ineighbor_alltoallw(p->send, p->counts, p->sdispls, p->types, p->recv, p->counts, p->rdispls, p->types, c, &r);
			break;
		}
		for (int i = 0; i < 16; i++) {
			s += p->send[i];        /* reading a pending send buffer */
			p->other[i] = s + k;    /* other data on the same page */
		}
		for (int i = 0; i < deg; i++)
			if (edge[i])
				p->recv[i] = -7; /* a block for MPI_PROC_NULL: a boundary condition */
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		for (int i = 0; i < deg; i++)
			s += p->recv[i];
		p->recv[0] = 0;             /* after the Wait */
	}
	return s;
}

int main(int argc, char **argv)
{
	int rank, size, s = 0;
	static struct page pg;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	/* a 2 x (size/2) grid, not periodic: the edges have MPI_PROC_NULL neighbours */
	int dims[2] = {0, 0}, periods[2] = {0, 0};
	MPI_Comm grid;
	MPI_Dims_create(size, 2, dims);
	MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
	int edge[8] = {0};
	for (int d = 0; d < 2; d++) {
		int src, dst;
		MPI_Cart_shift(grid, d, 1, &src, &dst);
		edge[2 * d] = src == MPI_PROC_NULL, edge[2 * d + 1] = dst == MPI_PROC_NULL;
	}
	s += exchange(grid, 4, edge, &pg, rank);
	MPI_Comm_free(&grid);

	/* a ring as a graph: each rank's neighbours are its predecessor and successor */
	int index[64], edges[128];
	for (int i = 0; i < size; i++) {
		index[i] = 2 * (i + 1);
		edges[2 * i] = (i + size - 1) % size;
		edges[2 * i + 1] = (i + 1) % size;
	}
	MPI_Comm graph;
	MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph);
	s += exchange(graph, 2, edge + 4, &pg, rank); /* no edges */
	MPI_Comm_free(&graph);

	/* a distributed graph: receive from the predecessor, send to the successor */
	int src = (rank + size - 1) % size, dst = (rank + 1) % size;
	MPI_Comm dist;
	MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, MPI_UNWEIGHTED, 1, &dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dist);
	s += exchange(dist, 1, edge + 4, &pg, rank);
	MPI_Comm_free(&dist);

	if (rank == 0)
		printf("%d\n", s > 0);
	MPI_Finalize();
	return 0;
}
