/* Derived datatypes made, used in MPI_Bcast and freed in a loop, with the
 * clock protocol off (as for Fortran callers), where one rank gives a
 * really different type signature once: {double, int} against the others'
 * {int, double}. Rank 1 first makes and uses a {int, double} type of its
 * own and frees it, so that the type it then makes may get the freed one's
 * handle: its signature is still that of the type it is, not of the one the
 * handle had. The other iterations are correct.
 * mpivet: np=3 verdict=error flags=--clocks=off
 */
#include <mpi.h>
#include <stddef.h>

struct id {
	int i;
	double d;
};
struct di {
	double d;
	int i;
};

static MPI_Datatype id_type(void)
{
	int bl[2] = {1, 1};
	MPI_Aint d[2] = {offsetof(struct id, i), offsetof(struct id, d)};
	MPI_Datatype ts[2] = {MPI_INT, MPI_DOUBLE}, t;
	MPI_Type_create_struct(2, bl, d, ts, &t);
	MPI_Type_commit(&t);
	return t;
}

static MPI_Datatype di_type(void)
{
	int bl[2] = {1, 1};
	MPI_Aint d[2] = {offsetof(struct di, d), offsetof(struct di, i)};
	MPI_Datatype ts[2] = {MPI_DOUBLE, MPI_INT}, t;
	MPI_Type_create_struct(2, bl, d, ts, &t);
	MPI_Type_commit(&t);
	return t;
}

int main(int argc, char **argv)
{
	int rank;
	char buf[64] = {0};
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int it = 0; it < 3; it++) {
		MPI_Datatype t;
		if (it == 1 && rank == 1) {
			MPI_Datatype mine = id_type();
			MPI_Bcast(buf, 1, mine, 0, MPI_COMM_SELF);
			MPI_Type_free(&mine);
			t = di_type();
		} else {
			t = id_type();
		}
		MPI_Bcast(buf, 1, t, 0, MPI_COMM_WORLD); // want "collective-mismatch"
		MPI_Type_free(&t);
	}
	MPI_Finalize();
	return 0;
}
