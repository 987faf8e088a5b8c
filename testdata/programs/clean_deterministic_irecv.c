// mpivet: np=4 flags=--deterministic,--buffering-check=off verdict=ok
/* A racy program whose wildcard nonblocking receives and wildcard
 * MPI_Sendrecv deterministic mode must decide (corpus/determinism_test.go
 * runs it again and again). Rank 0, once per phase, after a barrier:
 *   1. posts one MPI_Irecv(MPI_ANY_SOURCE) per worker and polls them with
 *      MPI_Testany, printing the source and size of each (MPI_Get_count)
 *      and the polls that found nothing;
 *   2. the same completed by MPI_Waitall, statuses printed in order;
 *   3. a wildcard MPI_Irecv followed by one from rank 1 with the same tag
 *      (the MPI must not give the second a message the first could take),
 *      each completed by MPI_Wait;
 *   4. MPI_Sendrecv to rank 1 receiving from MPI_ANY_SOURCE, once per
 *      worker.
 * Workers sleep a random time (seeded by their pid and the clock, up to
 * 20 ms) before each send, so without the mode the sources change order
 * from run to run. Worker w sends w ints. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MAXW 16

enum { GO = 9 };

static void nap(void) { usleep(rand() % 20000); }

static void go(int workers)
{
	for (int w = 1; w <= workers; w++)
		MPI_Send(&w, 1, MPI_INT, w, GO, MPI_COMM_WORLD);
}

static void wait_go(void)
{
	int g;
	MPI_Recv(&g, 1, MPI_INT, 0, GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

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
	int buf[MAXW][MAXW];
	if (rank == 0) {
		MPI_Request rq[MAXW];
		MPI_Status st, sts[MAXW];
		int n;
		for (int w = 0; w < workers; w++)
			MPI_Irecv(buf[w], MAXW, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &rq[w]);
		go(workers);
		for (int done = 0; done < workers; done++) {
			int idx, flag = 0;
			long polls = 0;
			while (!flag) {
				MPI_Testany(workers, rq, &idx, &flag, &st);
				polls += !flag;
			}
			MPI_Get_count(&st, MPI_INT, &n);
			printf("testany: request %d from %d, %d ints, first %d, after %ld polls\n", idx, st.MPI_SOURCE, n, buf[idx][0], polls);
		}

		for (int w = 0; w < workers; w++)
			MPI_Irecv(buf[w], MAXW, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &rq[w]);
		go(workers);
		MPI_Waitall(workers, rq, sts);
		printf("waitall:");
		for (int w = 0; w < workers; w++) {
			MPI_Get_count(&sts[w], MPI_INT, &n);
			printf(" %d(%d ints, tag %d)", sts[w].MPI_SOURCE, n, sts[w].MPI_TAG);
		}
		printf("\n");

		MPI_Irecv(buf[0], MAXW, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &rq[0]);
		MPI_Irecv(buf[1], MAXW, MPI_INT, 1, 3, MPI_COMM_WORLD, &rq[1]);
		go(workers);
		MPI_Wait(&rq[1], &sts[1]);
		MPI_Wait(&rq[0], &sts[0]);
		printf("wildcard then rank 1: %d then %d (first value %d, %d)\n", sts[0].MPI_SOURCE, sts[1].MPI_SOURCE, buf[0][0], buf[1][0]);
		for (int w = 2; w < workers + 1; w++) /* the other messages of phase 3 */
			MPI_Recv(buf[0], MAXW, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

		go(workers);
		printf("sendrecv:");
		for (int w = 0; w < workers; w++) {
			int out = w;
			MPI_Sendrecv(&out, 1, MPI_INT, 1, 6, buf[0], MAXW, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st);
			printf(" %d", st.MPI_SOURCE);
		}
		printf("\n");
	} else {
		for (int i = 0; i < MAXW; i++)
			buf[0][i] = rank * 100 + i;
		for (int tag = 1; tag <= 3; tag++) {
			wait_go();
			nap();
			MPI_Send(buf[0], rank, MPI_INT, 0, tag, MPI_COMM_WORLD);
			if (tag == 3 && rank == 1)
				MPI_Send(buf[0], rank, MPI_INT, 0, tag, MPI_COMM_WORLD);
		}
		wait_go();
		nap();
		MPI_Send(buf[0], 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
		if (rank == 1)
			for (int w = 0; w < workers; w++)
				MPI_Recv(buf[1], 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	MPI_Finalize();
	return 0;
}
