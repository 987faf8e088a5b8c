// mpivet: np=4 flags=--deterministic,--buffering-check=off verdict=ok
/* A racy program with persistent requests, whose completions deterministic
 * mode must fix (corpus/determinism_test.go runs it again and again): rank
 * 0 makes one persistent receive per worker (MPI_Recv_init) and one
 * persistent send (MPI_Send_init); three times it starts the receives
 * (MPI_Startall), tells the workers to go with the persistent sends
 * (MPI_Start each, completed by MPI_Wait) and polls the receives with
 * MPI_Testany, printing the order they complete in and the polls that
 * found nothing. Workers sleep a random time (seeded by their pid and the
 * clock, up to 20 ms) before they answer, so without the mode the order
 * and the polls change from run to run. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MAXW 16

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int workers = size - 1;
	if (workers < 1 || workers > MAXW) {
		MPI_Finalize();
		return 0;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	srand((unsigned)(getpid() * 7919 + ts.tv_nsec));
	if (rank == 0) {
		MPI_Request rq[MAXW], go[MAXW];
		int v[MAXW], round = 0;
		for (int w = 0; w < workers; w++) {
			MPI_Recv_init(&v[w], 1, MPI_INT, w + 1, 1, MPI_COMM_WORLD, &rq[w]);
			MPI_Send_init(&round, 1, MPI_INT, w + 1, 2, MPI_COMM_WORLD, &go[w]);
		}
		for (round = 0; round < 3; round++) {
			MPI_Startall(workers, rq);
			for (int w = 0; w < workers; w++) {
				MPI_Start(&go[w]);
				MPI_Wait(&go[w], MPI_STATUS_IGNORE);
			}
			printf("round %d:", round);
			for (int n = 0; n < workers; n++) {
				int idx, flag = 0;
				long polls = 0;
				MPI_Status st;
				while (!flag) {
					MPI_Testany(workers, rq, &idx, &flag, &st);
					polls += !flag;
				}
				printf(" %d=%d(src %d, %ld polls)", idx + 1, v[idx], st.MPI_SOURCE, polls);
			}
			printf("\n");
		}
		for (int w = 0; w < workers; w++) {
			MPI_Request_free(&rq[w]);
			MPI_Request_free(&go[w]);
		}
	} else {
		for (int round = 0; round < 3; round++) {
			int r;
			MPI_Recv(&r, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			usleep(rand() % 20000);
			int v = rank * 10 + r;
			MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
		}
	}
	MPI_Finalize();
	return 0;
}
