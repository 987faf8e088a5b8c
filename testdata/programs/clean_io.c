/* Correct parallel I/O: every rank writes its part of a file and reads it
 * back, with explicit offsets, a subarray view and collective calls, the
 * shared file pointer (ordered), nonblocking and split collective calls,
 * and checks what it read. The file is made in /tmp under a name rank 0
 * chooses, and deleted at the end.
 * mpivet: np=3 verdict=ok sameoutput=1
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define N 1024

static int bad;

static void expect(const int *got, int base, const char *what)
{
	for (int i = 0; i < N; i++)
		if (got[i] != base + i) {
			printf("%s: element %d is %d, not %d\n", what, i, got[i], base + i);
			bad = 1;
			return;
		}
}

static void fill(int *b, int base)
{
	for (int i = 0; i < N; i++)
		b[i] = base + i;
}

int main(int argc, char **argv)
{
	int rank, size, amode, flag;
	static int out[N], in[N];
	char name[256];
	MPI_File fh;
	MPI_Datatype row;
	MPI_Request req;
	MPI_Status st;
	MPI_Group g;
	MPI_Info info;
	MPI_Offset fsize, part;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rank == 0)
		snprintf(name, sizeof name, "/tmp/mpivet-clean-io-%d", (int)getpid());
	MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
	part = (MPI_Offset)size * N * sizeof(int);

	MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
	MPI_File_get_amode(fh, &amode);
	MPI_File_get_group(fh, &g);
	MPI_Group_free(&g);
	MPI_File_get_info(fh, &info);
	MPI_Info_free(&info);
	MPI_File_set_atomicity(fh, 0);
	MPI_File_get_atomicity(fh, &flag);
	MPI_File_preallocate(fh, 5 * part);

	/* explicit offsets, independent */
	fill(out, 1000 * rank);
	MPI_File_write_at(fh, (MPI_Offset)rank * N * sizeof(int), out, N, MPI_INT, &st);
	MPI_File_read_at(fh, (MPI_Offset)rank * N * sizeof(int), in, N, MPI_INT, &st);
	expect(in, 1000 * rank, "read_at");

	/* a view: the rank's row of a size x N array of ints, collective calls */
	int sizes[2] = {size, N}, subsizes[2] = {1, N}, starts[2] = {rank, 0};
	MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &row);
	MPI_Type_commit(&row);
	MPI_File_set_view(fh, part, MPI_INT, row, "native", MPI_INFO_NULL);
	fill(out, 2000 * rank);
	MPI_File_write_all(fh, out, N, MPI_INT, &st);
	MPI_File_sync(fh);
	MPI_File_seek(fh, 0, MPI_SEEK_SET);
	MPI_File_read_all(fh, in, N, MPI_INT, &st);
	expect(in, 2000 * rank, "read_all");
	MPI_File_write_at_all(fh, 0, out, N, MPI_INT, &st);
	MPI_File_read_at_all(fh, 0, in, N, MPI_INT, &st);
	expect(in, 2000 * rank, "read_at_all");

	/* the shared file pointer, in rank order */
	MPI_File_set_view(fh, 2 * part, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
	fill(out, 3000 * rank);
	MPI_File_write_ordered(fh, out, N, MPI_INT, &st);
	MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
	MPI_File_read_ordered(fh, in, N, MPI_INT, &st);
	expect(in, 3000 * rank, "read_ordered");

	/* nonblocking, independent and collective */
	MPI_File_set_view(fh, 3 * part, MPI_INT, row, "native", MPI_INFO_NULL);
	fill(out, 4000 * rank);
	MPI_File_iwrite_at(fh, 0, out, N, MPI_INT, &req);
	MPI_Wait(&req, &st);
	MPI_File_iread_at(fh, 0, in, N, MPI_INT, &req);
	MPI_Wait(&req, &st);
	expect(in, 4000 * rank, "iread_at");
	MPI_File_iwrite_all(fh, out, N, MPI_INT, &req);
	MPI_Wait(&req, &st);
	MPI_File_seek(fh, 0, MPI_SEEK_SET);
	MPI_File_iread_all(fh, in, N, MPI_INT, &req);
	MPI_Wait(&req, &st);
	expect(in, 4000 * rank, "iread_all");

	/* split collectives */
	MPI_File_set_view(fh, 4 * part, MPI_INT, row, "native", MPI_INFO_NULL);
	fill(out, 5000 * rank);
	MPI_File_write_all_begin(fh, out, N, MPI_INT);
	MPI_File_write_all_end(fh, out, &st);
	MPI_File_read_at_all_begin(fh, 0, in, N, MPI_INT);
	MPI_File_read_at_all_end(fh, in, &st);
	expect(in, 5000 * rank, "read_at_all_end");

	MPI_File_get_size(fh, &fsize);
	MPI_File_close(&fh);
	MPI_Type_free(&row);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		MPI_File_delete(name, MPI_INFO_NULL);
	MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (rank == 0)
		printf("%s: %lld bytes, amode %d\n", bad ? "wrong" : "ok", (long long)fsize, amode == (MPI_MODE_CREATE | MPI_MODE_RDWR));
	MPI_Finalize();
	return bad;
}
