/* Rank 1 crashes while parsing its input, before MPI_Init: the rank comes
 * from the launcher's environment, the line from the crash handler that
 * the layer installs as it loads.
 * mpivet: np=2 args=crash verdict=error
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static int launcher_rank(void)
{
	const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
	for (int i = 0; i < 3; i++)
		if (getenv(vars[i]))
			return atoi(getenv(vars[i]));
	return -1;
}

int main(int argc, char **argv)
{
	volatile int *input = NULL;
	if (argc > 1 && strcmp(argv[1], "crash") == 0 && launcher_rank() == 1)
		*input = 1; // want "program-failure"
	MPI_Init(&argc, &argv);
	MPI_Finalize();
	return 0;
}
