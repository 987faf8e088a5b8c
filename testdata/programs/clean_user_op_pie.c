/* User-defined operations and derived datatypes in a position-independent
 * executable with address-space randomisation (the Debian default), stripped
 * like a packaged binary: every rank has its functions and data at other
 * addresses, and nothing of that is a collective-mismatch.
 *   - two user operations (one non-commutative) in Allreduce and Reduce
 *   - derived types created, used in Bcast and freed in every iteration:
 *     a struct with absolute addresses (MPI_BOTTOM), a resized struct sent
 *     as 4 elements and received as one contiguous type of 4, an hvector,
 *     an indexed type and a duplicate; rank 0 also makes and uses a type of
 *     its own first, and odd ranks free in another order, so that handles
 *     are reused differently in every rank
 * The program checks that its functions do sit at different addresses in
 * different ranks: without randomisation it tests nothing, and says so.
 * mpivet: np=3 verdict=ok strip=1 flags=--clocks=off
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct {
	int n;
	double x[3];
} rec;

static void sum_ints(void *in, void *inout, int *len, MPI_Datatype *t)
{
	(void)t;
	for (int i = 0; i < *len; i++)
		((int *)inout)[i] += ((int *)in)[i];
}

/* keeps the left operand's record where it has more entries: not commutative */
static void pick_rec(void *in, void *inout, int *len, MPI_Datatype *t)
{
	(void)t;
	rec *a = in, *b = inout;
	for (int i = 0; i < *len; i++)
		if (a[i].n >= b[i].n)
			b[i] = a[i];
}

static MPI_Datatype rec_type(void)
{
	rec r;
	int bl[2] = {1, 3};
	MPI_Aint d[2], base;
	MPI_Datatype ts[2] = {MPI_INT, MPI_DOUBLE}, t, rt;
	MPI_Get_address(&r, &base);
	MPI_Get_address(&r.n, &d[0]);
	MPI_Get_address(r.x, &d[1]);
	d[0] -= base, d[1] -= base;
	MPI_Type_create_struct(2, bl, d, ts, &t);
	MPI_Type_create_resized(t, 0, sizeof(rec), &rt);
	MPI_Type_free(&t);
	MPI_Type_commit(&rt);
	return rt;
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	uint64_t fn = (uint64_t)(uintptr_t)&sum_ints, fns[64];
	MPI_Allgather(&fn, 1, MPI_UINT64_T, fns, 1, MPI_UINT64_T, MPI_COMM_WORLD);
	if (rank == 0 && size > 1 && fns[0] == fns[1]) {
		fprintf(stderr, "sum_ints is at the same address in ranks 0 and 1: "
				"no randomisation (kernel.randomize_va_space) or not PIE, this tests nothing\n");
		MPI_Abort(MPI_COMM_WORLD, 3);
	}

	MPI_Op sum, pick;
	MPI_Op_create(sum_ints, 1, &sum);
	MPI_Op_create(pick_rec, 0, &pick);

	for (int it = 0; it < 4; it++) {
		char scratch[16] = {0};
		if (rank == 0) { /* a type only rank 0 makes and uses */
			MPI_Datatype mine;
			MPI_Type_contiguous(it + 2, MPI_CHAR, &mine);
			MPI_Type_commit(&mine);
			MPI_Bcast(scratch, 1, mine, 0, MPI_COMM_SELF);
			MPI_Type_free(&mine);
		}

		/* absolute addresses: the data at MPI_BOTTOM */
		rec r = {rank == 0 ? it : -1, {1, 2, 3}};
		int bl[2] = {1, 3};
		MPI_Aint d[2];
		MPI_Datatype ts[2] = {MPI_INT, MPI_DOUBLE}, abs;
		MPI_Get_address(&r.n, &d[0]);
		MPI_Get_address(r.x, &d[1]);
		MPI_Type_create_struct(2, bl, d, ts, &abs);
		MPI_Type_commit(&abs);
		MPI_Bcast(MPI_BOTTOM, 1, abs, 0, MPI_COMM_WORLD);

		/* 4 records, as 4 x rec at the root and one contiguous type elsewhere */
		rec rs[4];
		memset(rs, 0, sizeof rs);
		MPI_Datatype rt = rec_type(), four, dup;
		MPI_Type_contiguous(4, rt, &four);
		MPI_Type_commit(&four);
		if (rank == 0)
			MPI_Bcast(rs, 4, rt, 0, MPI_COMM_WORLD);
		else
			MPI_Bcast(rs, 1, four, 0, MPI_COMM_WORLD);
		MPI_Type_dup(rt, &dup);
		MPI_Bcast(rs, 2, dup, 0, MPI_COMM_WORLD);

		/* every other pair of doubles of a row, and an indexed set of ints */
		double row[12] = {0};
		int ints[10] = {0}, blens[3] = {1, 2, 3}, displs[3] = {0, 3, 6};
		MPI_Datatype hv, ix;
		MPI_Type_create_hvector(3, 2, 4 * sizeof(double), MPI_DOUBLE, &hv);
		MPI_Type_indexed(3, blens, displs, MPI_INT, &ix);
		MPI_Type_commit(&hv);
		MPI_Type_commit(&ix);
		MPI_Bcast(row, 1, hv, 0, MPI_COMM_WORLD);
		MPI_Bcast(ints, 1, ix, 0, MPI_COMM_WORLD);

		int v[2] = {rank, it}, out[2];
		MPI_Allreduce(v, out, 2, MPI_INT, sum, MPI_COMM_WORLD);
		rs[0].n = rank;
		MPI_Reduce(rs, rs + 2, 2, rt, pick, 0, MPI_COMM_WORLD);

		if (rank % 2) {
			MPI_Type_free(&abs);
			MPI_Type_free(&four);
			MPI_Type_free(&rt);
			MPI_Type_free(&dup);
			MPI_Type_free(&hv);
			MPI_Type_free(&ix);
		} else {
			MPI_Type_free(&ix);
			MPI_Type_free(&hv);
			MPI_Type_free(&dup);
			MPI_Type_free(&rt);
			MPI_Type_free(&four);
			MPI_Type_free(&abs);
		}
	}
	MPI_Op_free(&sum);
	MPI_Op_free(&pick);
	MPI_Finalize();
	return 0;
}
