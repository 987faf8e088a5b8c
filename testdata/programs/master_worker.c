/* Master/worker with wildcard receives: the workers compute for over a
 * second per task (so mpivet's deadlock analysis runs while the master
 * waits), the master computes while the workers wait for their next task,
 * results arrive through a Waitany loop, and a nonblocking barrier overlaps
 * the last computation. Correct: no finding; two interleavings are run of
 * the many there are, so the verdict is incomplete.
 * mpivet: np=3 verdict=incomplete flags=--max-interleavings=2
 */
#include <mpi.h>

static void compute(double seconds)
{
	double t0 = MPI_Wtime();
	volatile double s = 0;
	while (MPI_Wtime() - t0 < seconds)
		for (int i = 0; i < 10000; i++)
			s += i;
}

int main(int argc, char **argv)
{
	int rank, size, tasks = 4, task, result, stop = -1;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rank == 0) {
		int sent = 0, done = 0;
		MPI_Status st;
		compute(1.3); /* the workers wait for their first task meanwhile */
		for (int w = 1; w < size && sent < tasks; w++, sent++)
			MPI_Send(&sent, 1, MPI_INT, w, 0, MPI_COMM_WORLD);
		while (done < sent) {
			MPI_Recv(&result, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st);
			done++;
			if (sent < tasks) {
				MPI_Send(&sent, 1, MPI_INT, st.MPI_SOURCE, 0, MPI_COMM_WORLD);
				sent++;
			}
		}
		for (int w = 1; w < size; w++)
			MPI_Send(&stop, 1, MPI_INT, w, 0, MPI_COMM_WORLD);
		/* a final gather through a Waitany loop */
		MPI_Request r[8];
		int got[8];
		for (int w = 1; w < size; w++)
			MPI_Irecv(&got[w], 1, MPI_INT, w, 2, MPI_COMM_WORLD, &r[w - 1]);
		for (int k = 1; k < size; k++) {
			int idx;
			MPI_Waitany(size - 1, r, &idx, MPI_STATUS_IGNORE);
		}
	} else {
		for (;;) {
			MPI_Recv(&task, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			if (task == stop)
				break;
			compute(1.2);
			result = task * task;
			MPI_Send(&result, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
		}
		compute(1.1); /* rank 0 waits in Waitany meanwhile */
		MPI_Send(&rank, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
	}
	MPI_Request b;
	MPI_Ibarrier(MPI_COMM_WORLD, &b);
	compute(rank == 1 ? 1.2 : 0.0); /* the others wait for the barrier */
	MPI_Wait(&b, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
