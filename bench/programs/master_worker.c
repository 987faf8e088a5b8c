/* A master hands T tasks to W = np-1 workers and collects results with
 * wildcard receives, giving each worker that returns a result the next task.
 * The k-th result can come from any worker still holding a task, so the
 * program has prod_k min(W, T-k+1) interleavings: 8 for W=2, T=4. With
 * --mixing-bound=0 it is 1 + sum_k (min(W, T-k+1) - 1) = 4 (linear in T),
 * and with the loop between MPI_Pcontrol(0) and MPI_Pcontrol(1) it is 1.
 * The result of each task is checked, so a wrong piggyback or match shows.
 * Usage: wildcard_master_worker T [pcontrol]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { TASK = 1, RESULT = 2, STOP = 3 };

int main(int argc, char **argv)
{
	int rank, size, tasks = argc > 1 ? atoi(argv[1]) : 4;
	int quiet = argc > 2 && strcmp(argv[2], "pcontrol") == 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rank == 0) {
		int next = 0, done = 0, sum = 0;
		for (int w = 1; w < size; w++, next++)
			MPI_Send(&next, 1, MPI_INT, w, TASK, MPI_COMM_WORLD);
		if (quiet)
			MPI_Pcontrol(0);
		while (done < tasks) {
			int r[2];
			MPI_Status st;
			MPI_Recv(r, 2, MPI_INT, MPI_ANY_SOURCE, RESULT, MPI_COMM_WORLD, &st);
			if (r[1] != r[0] * r[0] || r[0] < 0 || r[0] >= tasks) {
				fprintf(stderr, "wrong result %d for task %d from %d\n", r[1], r[0], st.MPI_SOURCE);
				MPI_Abort(MPI_COMM_WORLD, 2);
			}
			sum += r[1];
			done++;
			if (next < tasks) {
				int t = next++;
				MPI_Send(&t, 1, MPI_INT, st.MPI_SOURCE, TASK, MPI_COMM_WORLD);
			}
		}
		if (quiet)
			MPI_Pcontrol(1);
		for (int w = 1; w < size; w++)
			MPI_Send(&sum, 1, MPI_INT, w, STOP, MPI_COMM_WORLD);
	} else {
		for (;;) {
			int t, r[2];
			MPI_Status st;
			MPI_Recv(&t, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
			if (st.MPI_TAG == STOP)
				break;
			r[0] = t, r[1] = t * t;
			usleep(1000); /* a millisecond of work */
			MPI_Send(r, 2, MPI_INT, 0, RESULT, MPI_COMM_WORLD);
		}
	}
	MPI_Finalize();
	return 0;
}
