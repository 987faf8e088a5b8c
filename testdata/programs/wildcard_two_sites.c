/* Two wildcard call sites, and a bug behind the first: rank 0 takes one
 * message from rank 1 or 2 with a wildcard receive (site A) and fails if it
 * is rank 2's, then takes 8 more, 4 from each, with a wildcard receive in a
 * loop (site B). Rank 2 sends its first message late, so the native run
 * takes rank 1's at site A. Depth first, latest event first, the search
 * would replay every combination of site B's 8 events (hundreds) before
 * site A's alternative; site first, every site gets its alternatives tried
 * before any gets a second round, so A's is among the first replays, within
 * --max-interleavings=3.
 * mpivet: np=3 verdict=error flags=--max-interleavings=3
 */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, v;
	MPI_Status st;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st);
		if (st.MPI_SOURCE == 2)
			MPI_Abort(MPI_COMM_WORLD, 2); // want "program-failure"
		MPI_Recv(&v, 1, MPI_INT, 3 - st.MPI_SOURCE, 1, MPI_COMM_WORLD, &st);
		for (int i = 0; i < 8; i++)
			MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st);
	} else {
		if (rank == 2)
			usleep(100000);
		MPI_Send(&rank, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
		for (int i = 0; i < 4; i++)
			MPI_Send(&rank, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
