/* A program whose replays do not repeat it unless helped: rank 0 collects
 * one message from each worker with wildcard receives (2 interleavings at
 * 3 ranks), and writes a stamp file at the end. A worker that finds the
 * stamp (left by an earlier run) resumes instead of starting afresh: it
 * first waits, polling, for a "resume" message that rank 0 never sends.
 * Without help, every replay has such a worker, which polls forever (no
 * deadlock: a polling rank is running) while rank 0 waits for it in its
 * forced receive, until the time limit. mpivet must see at once that the
 * replay diverged (with --files=off, which leaves the stamp); with
 * --replay-hook removing the stamp, or by default (mpivet restores the
 * files before every replay), replays repeat the first run. Used by
 * corpus.TestReplayDivergence.
 * Usage: replay_diverges STAMP
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, size, v;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	const char *stamp = argc > 1 ? argv[1] : "replay_diverges.stamp";
	if (rank == 0) {
		for (int i = 1; i < size; i++) {
			MPI_Status st;
			MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
		}
		FILE *f = fopen(stamp, "w");
		if (f)
			fclose(f);
	} else {
		if (access(stamp, F_OK) == 0) {
			MPI_Request r;
			int flag = 0;
			MPI_Irecv(&v, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, &r);
			while (!flag) {
				MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
				usleep(1000);
			}
		}
		v = rank;
		MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
