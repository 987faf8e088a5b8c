/* Handles the program gets from queries, not from constructors, each freed
 * as the standard says and never freed where it must not be:
 * MPI_Type_get_contents of a struct gives its derived members (MPICH gives
 * the program's own handles, with one more reference; both must be freed)
 * and its predefined ones (never freed); MPI_Comm_get_info and
 * MPI_Win_get_info give info objects, MPI_Win_get_group a group, all freed;
 * MPI_Comm_get_errhandler a reference freed with MPI_Errhandler_free;
 * MPI_Type_match_size and MPI_Type_create_f90_real predefined datatypes,
 * used and not freed. Each round makes and frees more types, so the MPI
 * gives freed handle values again: none is an "already freed" one.
 * mpivet: np=2 verdict=ok sameoutput=1
 */
#include <mpi.h>
#include <stdio.h>

static void members(MPI_Datatype st)
{
	int ni, na, nd, comb, ints[8];
	MPI_Aint addrs[8];
	MPI_Datatype types[8];
	MPI_Type_get_envelope(st, &ni, &na, &nd, &comb);
	MPI_Type_get_contents(st, ni, na, nd, ints, addrs, types);
	for (int i = 0; i < nd; i++) {
		int ci, ca, cd, ccomb;
		MPI_Type_get_envelope(types[i], &ci, &ca, &cd, &ccomb);
		if (ccomb != MPI_COMBINER_NAMED)
			MPI_Type_free(&types[i]);
	}
}

int main(int argc, char **argv)
{
	int rank, sum = 0;
	double x[6] = {0};
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int round = 0; round < 4; round++) {
		MPI_Datatype vec, pair, st;
		int bl[3] = {1, 1, 1};
		MPI_Aint disp[3] = {0, 16, 40};
		MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
		MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
		MPI_Datatype in[3] = {vec, pair, MPI_INT};
		MPI_Type_create_struct(3, bl, disp, in, &st);
		MPI_Type_commit(&st);
		members(st);
		MPI_Type_free(&vec); /* st keeps what it needs */
		MPI_Type_free(&pair);
		members(st);
		MPI_Type_free(&st);
	}

	MPI_Info info;
	MPI_Comm_get_info(MPI_COMM_WORLD, &info);
	MPI_Info_free(&info);

	MPI_Win win;
	MPI_Group g;
	MPI_Win_create(x, sizeof x, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_get_group(win, &g);
	MPI_Win_get_info(win, &info);
	MPI_Info_free(&info);
	MPI_Group_free(&g);
	MPI_Win_free(&win);

	MPI_Errhandler eh;
	MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
	MPI_Errhandler_free(&eh);

	MPI_Datatype eight, real;
	MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &eight);
	MPI_Type_create_f90_real(6, 30, &real);
	double d = rank + 1, dsum = 0;
	MPI_Allreduce(&d, &dsum, 1, eight, MPI_SUM, MPI_COMM_WORLD);
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("sum %d %.1f\n", sum, dsum);
	MPI_Finalize();
	return 0;
}
