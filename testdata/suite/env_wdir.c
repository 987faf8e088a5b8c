/* A clean MPI program that prints what its launch gave it: the variables
 * SUITE_A and SUITE_B and the last part of its working directory (rank 0),
 * and exits with the status given as its first argument (0 by default).
 * mpivet exec's tests launch it with -x / -genv and a working directory.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, size;
	char cwd[4096];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0 && getcwd(cwd, sizeof cwd)) {
		const char *a = getenv("SUITE_A"), *b = getenv("SUITE_B"), *base = strrchr(cwd, '/');
		printf("size=%d A=%s B=%s dir=%s\n", size, a ? a : "-", b ? b : "-", base ? base + 1 : cwd);
		fflush(stdout);
	}
	MPI_Finalize();
	return argc > 1 ? atoi(argv[1]) : 0;
}
