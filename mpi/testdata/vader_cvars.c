/* Prints, from rank 0, the vader BTL's single-copy mechanism and eager
 * limit as MPI_T shows them to a running rank (the buffer checker's way),
 * for TestSharedMemory to compare with what ompi_info says. */
#include <mpi.h>
#include <stdio.h>

static int cvar(const char *name, unsigned long long *v, char *item, int itemsz)
{
	int idx, verb, bind, scope, count, nl = 0, dl = 0, ni;
	MPI_Datatype dt;
	MPI_T_enum et;
	MPI_T_cvar_handle h;
	if (MPI_T_cvar_get_index(name, &idx) != MPI_SUCCESS ||
	    MPI_T_cvar_get_info(idx, NULL, &nl, &verb, &dt, &et, NULL, &dl, &bind, &scope) != MPI_SUCCESS ||
	    MPI_T_cvar_handle_alloc(idx, NULL, &h, &count) != MPI_SUCCESS)
		return 0;
	union { int i; unsigned long ul; unsigned long long ull; char c[64]; } x = {0};
	MPI_T_cvar_read(h, &x);
	MPI_T_cvar_handle_free(&h);
	*v = dt == MPI_INT ? (unsigned long long)x.i : dt == MPI_UNSIGNED_LONG ? x.ul : x.ull;
	if (item && et != MPI_T_ENUM_NULL && MPI_T_enum_get_info(et, &ni, NULL, &nl) == MPI_SUCCESS)
		for (int k = 0; k < ni; k++) {
			int val, il = itemsz;
			if (MPI_T_enum_get_item(et, k, &val, item, &il) == MPI_SUCCESS && (unsigned long long)val == *v)
				return 1;
		}
	return 1;
}

int main(int argc, char **argv)
{
	int rank, prov;
	MPI_Init(&argc, &argv);
	MPI_T_init_thread(MPI_THREAD_SINGLE, &prov);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	unsigned long long mech = 0, eager = 0;
	char name[64] = "";
	int ok = cvar("btl_vader_single_copy_mechanism", &mech, name, sizeof name) &&
		 cvar("btl_vader_eager_limit", &eager, NULL, 0);
	if (rank == 0 && ok)
		printf("%s %llu\n", name, eager);
	MPI_T_finalize();
	MPI_Finalize();
	return 0;
}
