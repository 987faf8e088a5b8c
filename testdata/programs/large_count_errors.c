/* Errors in MPI 4.0 large-count (_c) forms with arrays and of MPI-IO:
 * rank 1 sends floats in MPI_Alltoallv_c where rank 0 receives ints; the
 * block that rank 0 sends rank 1 in a pending MPI_Ialltoallv_c is written
 * before its wait; the request of an MPI_File_iwrite_at_c is never
 * completed; a datatype of MPI_Type_indexed_c (3 ints) is never freed, and
 * its message is received as floats; the datatype MPI_Type_get_contents_c
 * returns of a datatype made of it (a new reference) is never freed.
 * Open MPI 4.1 has no _c forms.
 * mpivet: np=2 verdict=error mpi=mpich
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#define N 256

int main(int argc, char **argv)
{
	int rank;
	static int out[2 * N], in[2 * N];
	MPI_Count cnt[2] = {N, N}, bl[2] = {1, 2}, idsp[2] = {0, 4};
	float f[3];
	MPI_Datatype t, t2, parts[1];
	int ints[1];
	MPI_Aint addrs[1];
	MPI_Count larges[1];
	MPI_Aint dsp[2] = {0, N};
	char name[256];
	MPI_File fh;
	MPI_Request r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Alltoallv_c(out, cnt, dsp, rank == 1 ? MPI_FLOAT : MPI_INT, in, cnt, dsp, MPI_INT, MPI_COMM_WORLD); // want "collective-mismatch"
	MPI_Ialltoallv_c(out, cnt, dsp, MPI_INT, in, cnt, dsp, MPI_INT, MPI_COMM_WORLD, &r); // want "buffer-reuse"
	if (rank == 0)
		out[N + 1] = 7; // want "buffer-reuse"
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	if (rank == 0)
		snprintf(name, sizeof name, "/tmp/mpivet-large-errors-%d", (int)getpid());
	MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
	MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
	MPI_File_iwrite_at_c(fh, (MPI_Offset)rank * N * sizeof(int), out, N, MPI_INT, &r); // want "resource-leak" "request-lifecycle"
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_File_close(&fh);
	MPI_Type_indexed_c(2, bl, idsp, MPI_INT, &t); // want "resource-leak"
	MPI_Type_commit(&t);
	if (rank == 0)
		MPI_Send(out, 1, t, 1, 9, MPI_COMM_WORLD);
	else
		MPI_Recv(f, 3, MPI_FLOAT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "type-mismatch"
	MPI_Type_contiguous(2, t, &t2);
	MPI_Type_get_contents_c(t2, 1, 0, 1, 1, ints, addrs, larges, parts); // want "resource-leak"
	MPI_Type_free(&t2);
	MPI_Finalize();
	return 0;
}
