/* Correct use of MPI 4.0 large-count (_c) forms whose counts and
 * displacements are arrays (MPI_Count and MPI_Aint): vector collectives,
 * blocking, nonblocking and persistent, MPI-IO data calls (explicit
 * offsets, nonblocking, split collective), datatype constructors with
 * arrays, MPI_Type_get_contents_c, MPI_Op_create_c and MPI_Buffer_detach_c,
 * with small counts. Each
 * rank checks what it received. Open MPI 4.1 has no _c forms.
 * mpivet: np=2 verdict=ok mpi=mpich sameoutput=1
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#define N 4

static int bad;

static void expect(int got, int want, const char *what)
{
	if (got != want && !bad) {
		printf("%s: %d, not %d\n", what, got, want);
		bad = 1;
	}
}

/* vectors: every v collective's _c form, ranks exchange N ints each */
static void vectors(int rank, int size)
{
	int out[2 * N], in[2 * N], red[N];
	MPI_Count cnt[2] = {N, N}, one[2] = {N / 2, N / 2};
	MPI_Aint dsp[2] = {0, N}, bdsp[2] = {0, N * sizeof(int)};
	MPI_Datatype ts[2] = {MPI_INT, MPI_INT};
	MPI_Request r;
	for (int i = 0; i < 2 * N; i++)
		out[i] = 100 * rank + i;
	MPI_Gatherv_c(out, N, MPI_INT, in, cnt, dsp, MPI_INT, 0, MPI_COMM_WORLD);
	if (rank == 0)
		expect(in[N], 100, "gatherv");
	MPI_Scatterv_c(out, cnt, dsp, MPI_INT, in, N, MPI_INT, 0, MPI_COMM_WORLD);
	expect(in[0], rank * N, "scatterv");
	MPI_Allgatherv_c(out, N, MPI_INT, in, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
	expect(in[N], 100, "allgatherv");
	MPI_Alltoallv_c(out, cnt, dsp, MPI_INT, in, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
	expect(in[N], 100 + N * rank, "alltoallv");
	MPI_Alltoallw_c(out, cnt, bdsp, ts, in, cnt, bdsp, ts, MPI_COMM_WORLD);
	expect(in[N], 100 + N * rank, "alltoallw");
	MPI_Reduce_scatter_c(out, red, one, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	expect(red[0], 100 + 2 * rank * (N / 2), "reduce_scatter");
	MPI_Ialltoallv_c(out, cnt, dsp, MPI_INT, in, cnt, dsp, MPI_INT, MPI_COMM_WORLD, &r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	expect(in[N], 100 + N * rank, "ialltoallv");
	for (int it = 0; it < 2; it++) { /* persistent */
		MPI_Allgatherv_init_c(out, N, MPI_INT, in, cnt, dsp, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
		MPI_Start(&r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		MPI_Request_free(&r);
		expect(in[N], 100, "allgatherv_init");
	}
	(void)size;
}

/* files: the MPI-IO data calls' _c forms on a file deleted at its close */
static void files(int rank)
{
	int out[N], in[N];
	char name[256];
	MPI_File fh;
	MPI_Request r;
	MPI_Offset at = (MPI_Offset)rank * sizeof out;
	if (rank == 0)
		snprintf(name, sizeof name, "/tmp/mpivet-clean-large-%d", (int)getpid());
	MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
	MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
	for (int i = 0; i < N; i++)
		out[i] = 10 * rank + i;
	MPI_File_write_at_c(fh, at, out, N, MPI_INT, MPI_STATUS_IGNORE);
	MPI_File_iwrite_at_c(fh, at + 2 * sizeof out, out, N, MPI_INT, &r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_File_write_at_all_begin_c(fh, at + 4 * sizeof out, out, N, MPI_INT);
	MPI_File_write_at_all_end(fh, out, MPI_STATUS_IGNORE);
	MPI_File_sync(fh);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_File_sync(fh);
	MPI_File_read_at_all_c(fh, at + 2 * sizeof out, in, N, MPI_INT, MPI_STATUS_IGNORE);
	expect(in[1], 10 * rank + 1, "read_at_all");
	MPI_File_seek(fh, at + 4 * sizeof out, MPI_SEEK_SET);
	MPI_File_read_c(fh, in, N, MPI_INT, MPI_STATUS_IGNORE);
	expect(in[2], 10 * rank + 2, "read");
	MPI_File_close(&fh);
}

static void sum_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *t)
{
	for (MPI_Count i = 0; i < *len; i++)
		((int *)inout)[i] += ((int *)in)[i];
	(void)t;
}

/* types and operations: datatypes made by the _c constructors carry
 * messages, a user operation of MPI_Op_create_c reduces, a buffer of
 * MPI_Buffer_attach_c is detached with MPI_Buffer_detach_c */
static void others(int rank)
{
	int buf[8] = {0}, got[8] = {0}, sum = 0, one = 1;
	MPI_Count bl[2] = {1, 2}, d[2] = {0, 4}, sz[1] = {8}, sub[1] = {3}, st[1] = {2}, size;
	MPI_Datatype idx, sa;
	MPI_Op op;
	static char bsend[1024];
	void *det;
	for (int i = 0; i < 8; i++)
		buf[i] = 10 * rank + i;
	MPI_Type_indexed_c(2, bl, d, MPI_INT, &idx);
	MPI_Type_create_subarray_c(1, sz, sub, st, MPI_ORDER_C, MPI_INT, &sa);
	MPI_Type_commit(&idx);
	MPI_Type_commit(&sa);
	MPI_Sendrecv(buf, 1, idx, 1 - rank, 0, got, 3, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	expect(got[1], 10 * (1 - rank) + 4, "indexed_c");
	MPI_Sendrecv(buf, 1, sa, 1 - rank, 1, got, 1, sa, 1 - rank, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	expect(got[2], 10 * (1 - rank) + 2, "subarray_c");
	MPI_Type_free(&sa);
	{ /* the contents of a datatype of a datatype: a new reference, freed */
		MPI_Datatype two, parts[1];
		int ints[1];
		MPI_Aint addrs[1];
		MPI_Count larges[1];
		MPI_Type_contiguous(2, idx, &two);
		MPI_Type_get_contents_c(two, 1, 0, 1, 1, ints, addrs, larges, parts);
		MPI_Type_free(&parts[0]);
		MPI_Type_free(&two);
	}
	MPI_Type_free(&idx);
	d[1] = (MPI_Count)1 << 33; /* beyond an int: made by the MPI's large-count constructor */
	MPI_Type_indexed_c(2, bl, d, MPI_CHAR, &idx);
	MPI_Type_commit(&idx);
	MPI_Type_free(&idx);
	MPI_Op_create_c(sum_c, 1, &op);
	MPI_Allreduce(&one, &sum, 1, MPI_INT, op, MPI_COMM_WORLD);
	expect(sum, 2, "op_create_c");
	MPI_Op_free(&op);
	MPI_Buffer_attach_c(bsend, sizeof bsend);
	MPI_Bsend(&one, 1, MPI_INT, 1 - rank, 2, MPI_COMM_WORLD);
	MPI_Recv(&sum, 1, MPI_INT, 1 - rank, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Buffer_detach_c(&det, &size);
	expect((int)size, (int)sizeof bsend, "buffer_detach_c");
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	vectors(rank, size);
	files(rank);
	others(rank);
	if (rank == 0)
		printf("%s\n", bad ? "wrong" : "right");
	MPI_Finalize();
	return bad;
}
