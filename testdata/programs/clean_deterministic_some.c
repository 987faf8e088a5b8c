// mpivet: np=4 flags=--deterministic,--buffering-check=off verdict=ok
/* A racy program whose every observable outcome deterministic mode must fix
 * (corpus/determinism_test.go runs it again and again): rank 0 posts one
 * receive per worker and polls them with MPI_Testsome, printing each group
 * the call returns and the number of polls that found nothing; then again
 * with MPI_Waitsome (the groups), with MPI_Testall (how many polls before
 * all are complete), and finally rank 0 polls its own MPI_Isend to every
 * worker with MPI_Testsome. Workers sleep a random time (seeded by their
 * pid and the clock, up to 20 ms) before each send, after rank 0 tells
 * them to go, so without the mode the groups and the poll counts change
 * from run to run. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MAXW 16

enum { GO = 9 };

/* post posts rank 0's receives, then starts the phase: it tells every
 * worker to go, so that the workers' random delays decide the race. (Not
 * a barrier: a worker blocked in one cannot answer the mode's Requests,
 * and rank 0's polls would have to give up, relaxed.) */
static void post(MPI_Request *rq, int *v, int workers, int tag)
{
	for (int w = 0; w < workers; w++)
		MPI_Irecv(&v[w], 1, MPI_INT, w + 1, tag, MPI_COMM_WORLD, &rq[w]);
	for (int w = 1; w <= workers; w++)
		MPI_Send(&w, 1, MPI_INT, w, GO, MPI_COMM_WORLD);
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
	if (rank == 0) {
		MPI_Request rq[MAXW];
		int v[MAXW], idx[MAXW], n, done;
		long polls;
		MPI_Status sts[MAXW];

		post(rq, v, workers, 1);
		for (done = 0, polls = 0; done < workers;) {
			MPI_Testsome(workers, rq, &n, idx, sts);
			if (n == 0) {
				polls++;
				continue;
			}
			printf("testsome after %ld polls:", polls);
			for (int i = 0; i < n; i++)
				printf(" %d=%d(src %d)", idx[i] + 1, v[idx[i]], sts[i].MPI_SOURCE);
			printf("\n");
			done += n, polls = 0;
		}

		post(rq, v, workers, 2);
		for (done = 0; done < workers; done += n) {
			MPI_Waitsome(workers, rq, &n, idx, MPI_STATUSES_IGNORE);
			printf("waitsome:");
			for (int i = 0; i < n; i++)
				printf(" %d=%d", idx[i] + 1, v[idx[i]]);
			printf("\n");
		}

		post(rq, v, workers, 3);
		int flag = 0;
		for (polls = 0; !flag; polls += !flag)
			MPI_Testall(workers, rq, &flag, sts);
		printf("testall after %ld polls:", polls);
		for (int w = 0; w < workers; w++)
			printf(" %d", v[w]);
		printf("\n");

		int go[MAXW];
		for (int w = 0; w < workers; w++) {
			go[w] = w;
			MPI_Isend(&go[w], 1, MPI_INT, w + 1, 4, MPI_COMM_WORLD, &rq[w]);
		}
		for (done = 0, polls = 0; done < workers;) {
			MPI_Testsome(workers, rq, &n, idx, MPI_STATUSES_IGNORE);
			if (n == 0) {
				polls++;
				continue;
			}
			printf("sends testsome after %ld polls: %d\n", polls, n);
			done += n, polls = 0;
		}
	} else {
		for (int tag = 1; tag <= 3; tag++) {
			int g;
			MPI_Recv(&g, 1, MPI_INT, 0, GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			usleep(rand() % 20000);
			int v = rank * 10 + tag;
			MPI_Send(&v, 1, MPI_INT, 0, tag, MPI_COMM_WORLD);
		}
		usleep(rand() % 3000);
		int go;
		MPI_Recv(&go, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	MPI_Finalize();
	return 0;
}
