/* A small correct parallel HDF5 program: every rank writes its rows of a
 * two-dimensional dataset with collective MPI-IO, then reads the whole
 * dataset back independently and checks it. The file is argv[1].
 * Built with mpicc.openmpi -I/usr/include/hdf5/openmpi
 * -L/usr/lib/x86_64-linux-gnu/hdf5/openmpi -lhdf5 (corpus/hdf5_test.go).
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ROWS 4  /* per rank */
#define COLS 64

int main(int argc, char **argv)
{
	int rank, size, bad = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 2) {
		if (rank == 0)
			fprintf(stderr, "usage: %s FILE\n", argv[0]);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}

	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
	hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	hsize_t dims[2] = {(hsize_t)size * ROWS, COLS};
	hid_t space = H5Screate_simple(2, dims, NULL);
	hid_t dset = H5Dcreate2(file, "grid", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);

	double *mine = malloc(sizeof(double) * ROWS * COLS);
	for (int i = 0; i < ROWS * COLS; i++)
		mine[i] = rank * ROWS * COLS + i;
	hsize_t start[2] = {(hsize_t)rank * ROWS, 0}, count[2] = {ROWS, COLS};
	H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
	hid_t memspace = H5Screate_simple(2, count, NULL);
	hid_t xfer = H5Pcreate(H5P_DATASET_XFER);
	H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE);
	if (H5Dwrite(dset, H5T_NATIVE_DOUBLE, memspace, space, xfer, mine) < 0)
		bad = 1;
	H5Pclose(xfer);
	H5Sclose(memspace);
	H5Sclose(space);
	H5Dclose(dset);
	H5Fclose(file);

	file = H5Fopen(argv[1], H5F_ACC_RDONLY, fapl);
	dset = H5Dopen2(file, "grid", H5P_DEFAULT);
	double *all = malloc(sizeof(double) * size * ROWS * COLS);
	if (H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, all) < 0)
		bad = 1;
	for (int i = 0; i < size * ROWS * COLS && !bad; i++)
		bad = all[i] != i;
	H5Dclose(dset);
	H5Fclose(file);
	H5Pclose(fapl);
	free(mine);
	free(all);

	MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (rank == 0)
		printf("%s\n", bad ? "wrong" : "ok");
	MPI_Finalize();
	return bad;
}
