/* Communicators made at run time, all freed: split by parity, a Cartesian
 * subgrid, an intercommunicator between the halves and its merge. Each rank
 * prints what MPI says the members are, for the membership test in
 * corpus/comm_test.go to compare with what the layer recorded.
 * mpivet: np=4 verdict=ok
 */
#include <mpi.h>
#include <stdio.h>

static void show(const char *name, MPI_Comm c)
{
	int rank, n, w;
	MPI_Group g, world;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_group(c, &g);
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	MPI_Group_size(g, &n);
	/* one write per line: the launcher may interleave ranks' output */
	char line[512];
	int k = snprintf(line, sizeof line, "MEMBERS %d %s", rank, name);
	for (int i = 0; i < n && k < (int)sizeof line - 16; i++) {
		MPI_Group_translate_ranks(g, 1, &i, world, &w);
		k += snprintf(line + k, sizeof line - k, " %d", w);
	}
	printf("%s\n", line);
	fflush(stdout);
	MPI_Group_free(&g);
	MPI_Group_free(&world);
}

int main(int argc, char **argv)
{
	int rank, dims[2] = {2, 2}, periods[2] = {0, 0}, keep[2] = {0, 1};
	MPI_Comm half, cart, row, inter, merged;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half); /* reversed order */
	show("split", half);
	MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
	MPI_Cart_sub(cart, keep, &row);
	show("cartsub", row);
	/* the key -rank reverses each half: its leader is its highest world rank */
	int size;
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int last_even = (size - 1) / 2 * 2, last_odd = size % 2 ? size - 2 : size - 1;
	MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? last_odd : last_even, 7, &inter);
	MPI_Intercomm_merge(inter, rank % 2, &merged);
	show("merged", merged);
	MPI_Comm_free(&merged);
	MPI_Comm_free(&inter);
	MPI_Comm_free(&row);
	MPI_Comm_free(&cart);
	MPI_Comm_free(&half);
	MPI_Finalize();
	return 0;
}
