/* MPI_Put outside any epoch with the window's default error handler
 * (MPI_ERRORS_ARE_FATAL): both MPIs end the job inside the call
 * (MPI_ERR_RMA_SYNC). The epoch error is judged from the call's entry
 * record, so it reaches the report beside the program failure.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, buf[4] = {0}, v = 1;
	MPI_Win win;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Put(&v, 1, MPI_INT, 1 - rank, 0, 1, MPI_INT, win); // want "rma-epoch" "program-failure"
	MPI_Win_fence(0, win);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
