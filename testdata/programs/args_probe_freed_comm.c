/* A polling loop whose arguments the checks pass, then the same poll, with
 * the same handle value, on the communicator freed since (through a copy of
 * its handle): a probe repeated with the same arguments is checked once, and
 * only until an object is made or freed, so the freed communicator is
 * reported before the MPI sees it. Then the MPI fails (MPICH: MPI_ERR_COMM;
 * Open MPI crashes on the freed handle), as in args_freed_comm_fatal.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

static int poll(MPI_Comm c)
{
	int flag = 0;
	MPI_Iprobe(MPI_ANY_SOURCE, 5, c, &flag, MPI_STATUS_IGNORE); // want "invalid-argument" "program-failure"
	return flag;
}

int main(int argc, char **argv)
{
	MPI_Comm c, copy;
	MPI_Init(&argc, &argv);
	MPI_Comm_dup(MPI_COMM_WORLD, &c);
	copy = c;
	for (int i = 0; i < 1000; i++)
		poll(c);
	MPI_Comm_free(&c);
	poll(copy);
	MPI_Finalize();
	return 0;
}
