/* A rank that plants a symbolic link to the file VICTIM (argv[1]) where
 * its supervisor is about to write how it ended, RUNDIR/p.HOST.PID.exit,
 * as anyone who can write in a run directory could: the supervisor must
 * replace the link, never write through it. The rank finds its run
 * directory as the directory of its log, which the layer maps. Rank 0
 * receives one message from each other rank with MPI_ANY_SOURCE, so that
 * the exploration replays the other order: every run of it plants.
 * Used by corpus/rundir_test.go (not a corpus program: it needs VICTIM).
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void plant(const char *victim)
{
	char host[256] = "", name[400], line[8192];
	gethostname(host, sizeof host - 1);
	snprintf(name, sizeof name, "/p.%s.%d.log", host, (int)getpid());
	FILE *maps = fopen("/proc/self/maps", "r");
	if (!maps)
		return;
	while (fgets(line, sizeof line, maps)) {
		line[strcspn(line, "\n")] = 0;
		char *at = strstr(line, name);
		char *path = strchr(line, '/');
		if (!at || !path || strcmp(at, name) != 0)
			continue;
		char link[8192];
		snprintf(link, sizeof link, "%.*s/p.%s.%d.exit", (int)(at - path), path, host, (int)getpid());
		if (symlink(victim, link) != 0)
			perror(link);
		break;
	}
	fclose(maps);
}

int main(int argc, char **argv)
{
	int rank, size, x = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1)
		plant(argv[1]);
	if (rank == 0) {
		for (int i = 1; i < size; i++)
			MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else {
		MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
