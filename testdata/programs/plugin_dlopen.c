/* MPI loaded at run time, as mpi4py's extension module is by the Python
 * interpreter: this program is not linked against MPI; it dlopens a plugin
 * (this same source built with -DPLUGIN by the MPI's wrapper, given as its
 * first argument) with RTLD_LOCAL, or RTLD_GLOBAL with a second argument
 * "global", and runs it. The plugin's MPI calls must still reach the
 * preloaded layer (the global scope comes first, the preloaded library in
 * it, whatever the plugin's own scope), and its bugs be found at its lines.
 * mpivet: np=2 verdict=error plugin=1
 */
#ifdef PLUGIN
#include <mpi.h>
#include <stddef.h>

int plugin_main(void)
{
	int rank, x = 7, y = 0;
	MPI_Request req;
	MPI_Init(NULL, NULL);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Isend(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req); // want "request-lifecycle" "resource-leak"
	} else {
		MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	MPI_Finalize();
	return y == 7 || rank == 0 ? 0 : 1;
}
#else
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s PLUGIN.so [global]\n", argv[0]);
		return 2;
	}
	int mode = RTLD_NOW | (argc > 2 && strcmp(argv[2], "global") == 0 ? RTLD_GLOBAL : RTLD_LOCAL);
	void *h = dlopen(argv[1], mode);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 2;
	}
	int (*run)(void) = (int (*)(void))dlsym(h, "plugin_main");
	if (!run) {
		fprintf(stderr, "dlsym: %s\n", dlerror());
		return 2;
	}
	return run();
}
#endif
