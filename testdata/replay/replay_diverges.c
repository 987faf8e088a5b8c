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
 * corpus.TestReplayDivergence. With "child", a child process writes the
 * stamp: mpivet does not follow it, and its replays diverge whatever it
 * restores.
 * Usage: replay_diverges STAMP [child]
 */
#include <mpi.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

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
		if (argc > 2 && strcmp(argv[2], "child") == 0) {
			char *touch[] = {"touch", (char *)stamp, NULL};
			pid_t pid;
			if (posix_spawnp(&pid, "touch", NULL, NULL, touch, environ) == 0)
				waitpid(pid, NULL, 0);
		} else {
			FILE *f = fopen(stamp, "w");
			if (f)
				fclose(f);
		}
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
