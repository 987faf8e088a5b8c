/* Nonblocking file operations whose buffers the program touches before
 * they complete: a pending write's buffer written (the file may get either
 * value), a pending read's buffer read (its contents are undefined until
 * MPI_Wait returns), and the buffer of a split collective write written
 * between its begin and its end.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#define N 1024

int main(int argc, char **argv)
{
	int rank, sum = 0;
	static int out[N], in[N];
	char name[256];
	MPI_File fh;
	MPI_Request req;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		snprintf(name, sizeof name, "/tmp/mpivet-io-pending-%d", (int)getpid());
	MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
	MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
	for (int i = 0; i < N; i++)
		out[i] = rank + i;
	MPI_File_iwrite_at(fh, (MPI_Offset)rank * sizeof out, out, N, MPI_INT, &req); // want "buffer-reuse"
	out[0] = -1; // want "buffer-reuse"
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_File_iread_at(fh, (MPI_Offset)rank * sizeof out, in, N, MPI_INT, &req); // want "buffer-reuse"
	sum = *(volatile int *)&in[N - 1]; // want "buffer-reuse"
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_File_set_view(fh, (MPI_Offset)rank * sizeof out, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
	MPI_File_write_all_begin(fh, out, N, MPI_INT); // want "buffer-reuse"
	out[1] = -1; // want "buffer-reuse"
	MPI_File_write_all_end(fh, out, MPI_STATUS_IGNORE); // want "buffer-reuse"
	MPI_File_close(&fh);
	printf("%d\n", sum > 0);
	MPI_Finalize();
	return 0;
}
