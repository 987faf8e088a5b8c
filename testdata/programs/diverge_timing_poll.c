/* A program whose MPI calls depend on timing: rank 0 polls with MPI_Iprobe
 * for a message from rank 1 (a named source), which rank 1 sends after a
 * while, and until it is there sends a tick to rank 2 at every poll that
 * finds nothing (a progress report). How many ticks it sends depends on
 * how soon the message comes, so no run makes the MPI calls of another.
 * Then ranks 1-3 race to send three messages each to rank 0's wildcard
 * receives: 1,680 orders. Every replay of another order must repeat rank
 * 0's ticks before its forced match, and diverges there: mpivet must see
 * that after a few and stop, the alternatives counted as not replayable,
 * with an incomplete verdict that names the polling loop's place, instead
 * of spending its budget on replays that check nothing.
 * mpivet: np=4 verdict=incomplete atmost=10 stopped=timing timeout=60s
 */
#include <mpi.h>
#include <unistd.h>

enum { TICK = 1, DONE = 2, READY = 3, RACE = 5 };

static void poll_for_rank1(void)
{
	int flag = 0, v = 0, polls = 0;
	while (!flag) {
		MPI_Iprobe(1, READY, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
		if (!flag) {
			polls++;
			MPI_Send(&polls, 1, MPI_INT, 2, TICK, MPI_COMM_WORLD);
			usleep(200);
		}
	}
	MPI_Recv(&v, 1, MPI_INT, 1, READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Send(&polls, 1, MPI_INT, 2, DONE, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
	int rank, v = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		poll_for_rank1();
		for (int i = 0; i < 9; i++)
			MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, RACE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else {
		if (rank == 1) {
			usleep(30000);
			MPI_Send(&v, 1, MPI_INT, 0, READY, MPI_COMM_WORLD);
		}
		if (rank == 2) {
			MPI_Status st;
			do
				MPI_Recv(&v, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
			while (st.MPI_TAG == TICK);
		}
		for (int i = 0; i < 3; i++)
			MPI_Send(&rank, 1, MPI_INT, 0, RACE, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
