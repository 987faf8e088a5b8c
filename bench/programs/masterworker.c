/* A racy master/worker program (deterministic mode's test and benchmark,
 * layer/src/determinism): the master hands out tasks, polls for results
 * with MPI_Iprobe(MPI_ANY_SOURCE), takes them with a wildcard MPI_Recv and
 * prints them in arrival order, with the number of polls that found
 * nothing; then it polls one receive per worker with MPI_Testany and
 * prints the order they complete in. Workers take a random time (seeded by
 * their pid and the clock) for each task, so without deterministic mode
 * the output changes from run to run.
 *
 * usage: masterworker [TASKS [MAXDELAY_US [time]]] (default 4 tasks per worker,
 * 2000 us); with "time", the master prints RESULT run_ms=<its time from the
 * first task to the last result> (bench). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { TASK = 1, STOP = 2, RESULT = 3, LAST = 4 };

static void work(int maxdelay)
{
	if (maxdelay > 0)
		usleep(rand() % maxdelay);
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int workers = size - 1;
	int tasks = argc > 1 ? atoi(argv[1]) * workers : 4 * workers;
	int maxdelay = argc > 2 ? atoi(argv[2]) : 2000;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	srand((unsigned)(getpid() * 7919 + ts.tv_nsec));
	if (workers < 1) {
		MPI_Finalize();
		return 0;
	}
	int timed = argc > 3 && strcmp(argv[3], "time") == 0;
	if (rank == 0) {
		int next = 0, done = 0;
		double t0 = MPI_Wtime();
		for (int w = 1; w <= workers; w++) {
			int t = next < tasks ? next++ : -1;
			MPI_Send(&t, 1, MPI_INT, w, t < 0 ? STOP : TASK, MPI_COMM_WORLD);
		}
		while (done < tasks) {
			int flag = 0;
			long polls = 0;
			MPI_Status st;
			while (!flag) {
				MPI_Iprobe(MPI_ANY_SOURCE, RESULT, MPI_COMM_WORLD, &flag, &st);
				polls += !flag;
			}
			int r[2];
			MPI_Recv(r, 2, MPI_INT, MPI_ANY_SOURCE, RESULT, MPI_COMM_WORLD, &st);
			printf("result task=%d value=%d from=%d polls=%ld\n", r[0], r[1], st.MPI_SOURCE, polls);
			done++;
			int t = next < tasks ? next++ : -1;
			MPI_Send(&t, 1, MPI_INT, st.MPI_SOURCE, t < 0 ? STOP : TASK, MPI_COMM_WORLD);
		}
		MPI_Request *rq = malloc(workers * sizeof *rq);
		int *v = malloc(workers * sizeof *v);
		for (int w = 0; w < workers; w++)
			MPI_Irecv(&v[w], 1, MPI_INT, w + 1, LAST, MPI_COMM_WORLD, &rq[w]);
		for (int n = 0; n < workers; n++) {
			int idx, flag = 0;
			long polls = 0;
			while (!flag) {
				MPI_Testany(workers, rq, &idx, &flag, MPI_STATUS_IGNORE);
				polls += !flag;
			}
			printf("last from=%d value=%d polls=%ld\n", idx + 1, v[idx], polls);
		}
		free(rq);
		free(v);
		if (timed)
			printf("RESULT run_ms=%.3f\n", 1000 * (MPI_Wtime() - t0));
	} else {
		for (;;) {
			int t;
			MPI_Status st;
			MPI_Recv(&t, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
			if (st.MPI_TAG == STOP)
				break;
			work(maxdelay);
			int r[2] = {t, t * t + rank};
			MPI_Send(r, 2, MPI_INT, 0, RESULT, MPI_COMM_WORLD);
		}
		work(maxdelay);
		int v = rank * 100;
		MPI_Send(&v, 1, MPI_INT, 0, LAST, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
