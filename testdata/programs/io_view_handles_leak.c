/* The handles MPI-IO queries give the program: MPI_File_get_view returns
 * the view's derived filetype as a new datatype, which the program must
 * free, and MPI_File_create_errhandler a new error handler. Here neither is
 * freed: two leaks. The etype it returns is predefined (MPI_INT): not to be
 * freed, no finding. The file is made in /tmp under a name rank 0 chooses.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

static void on_error(MPI_File *fh, int *code, ...)
{
	(void)fh, (void)code;
}

int main(int argc, char **argv)
{
	int rank, x[4] = {1, 2, 3, 4};
	char name[256], rep[MPI_MAX_DATAREP_STRING];
	MPI_File fh;
	MPI_Datatype pair, etype, filetype;
	MPI_Offset disp;
	MPI_Errhandler eh;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		snprintf(name, sizeof name, "/tmp/mpivet-io-view-leak-%d", (int)getpid());
	MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
	MPI_Type_vector(2, 1, 2, MPI_INT, &pair);
	MPI_Type_commit(&pair);
	MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
	MPI_File_create_errhandler(on_error, &eh); // want "resource-leak"
	MPI_File_set_errhandler(fh, eh);
	MPI_File_set_view(fh, rank * sizeof(int), MPI_INT, pair, "native", MPI_INFO_NULL);
	MPI_File_get_view(fh, &disp, &etype, &filetype, rep); // want "resource-leak"
	MPI_File_write_all(fh, x, 2, MPI_INT, MPI_STATUS_IGNORE);
	MPI_File_close(&fh);
	MPI_Type_free(&pair);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		unlink(name);
	MPI_Finalize();
	return 0;
}
