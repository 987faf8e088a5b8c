/* A program whose calls differ in one run only, for a reason met once:
 * rank 0 collects two messages from each of ranks 1 and 2 with wildcard
 * receives (6 orders), and before that, in the one run that first claims
 * the file MARK.once (the first run claims MARK.first), makes an extra
 * MPI_Sendrecv with itself. That replay diverges; the others repeat the
 * first run, and the exploration must go on with them: one divergence is
 * no timing dependence. Used by corpus.TestOneOffDivergence, with
 * --files=off (mpivet would otherwise remove the claims before each
 * replay). Usage: diverge_once MARK
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

static int claim(const char *mark, const char *suffix)
{
	char path[4096];
	snprintf(path, sizeof path, "%s.%s", mark, suffix);
	int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

int main(int argc, char **argv)
{
	int rank, v = 0, w = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		if (argc > 1 && !claim(argv[1], "first") && claim(argv[1], "once"))
			MPI_Sendrecv(&v, 1, MPI_INT, 0, 7, &w, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		for (int i = 0; i < 4; i++)
			MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else {
		for (int i = 0; i < 2; i++)
			MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
