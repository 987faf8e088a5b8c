/* A program whose files make a run depend on the runs before it, as real
 * applications' do, with a wildcard race that gives replays to run: rank 0
 * takes one message from each worker with wildcard receives (2 orders at
 * 3 ranks; rank 2 sends late, so the first run takes rank 1's message
 * first). Before that, each mode touches a file that a later run would
 * find:
 *
 *   excl DIR    rank 0 creates DIR/result.out with O_CREAT|O_EXCL (as HDF5
 *               creates its files) and, if it exists, says so and exits 1;
 *               the message of rank 2 taken first sends rank 0 waiting for
 *               a message rank 1 never sends: a deadlock in that order.
 *   log DIR     rank 0 appends to DIR/run.log and reads it back: a log with
 *               an earlier line makes it resume (a broadcast more).
 *   mpiio DIR   all ranks create DIR/out.dat with MPI_File_open and
 *               MPI_MODE_CREATE|MPI_MODE_EXCL, and each writes its rank;
 *               a file that exists fails the open: every rank exits 1.
 *   mkdir DIR   rank 0 makes the output directory DIR/out (an absolute
 *               path, as an assembler's output directory) and refuses to
 *               run if it exists, then writes DIR/out/result.
 *
 * Used by corpus.TestFilesRestored: every replay must start from the files
 * the first run started from, and the files end as after one native run.
 * Usage: files_outputs MODE DIR
 */
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char path[4096];

static int excl(const char *dir)
{
	snprintf(path, sizeof path, "%s/result.out", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0) {
		fprintf(stderr, "%s exists: not overwriting results\n", path);
		return -1;
	}
	return fd;
}

/* log_lines appends a line to DIR/run.log and says how many it had. */
static int log_lines(const char *dir)
{
	snprintf(path, sizeof path, "%s/run.log", dir);
	FILE *f = fopen(path, "a+");
	if (!f)
		return -1;
	int lines = 0, c;
	rewind(f);
	while ((c = fgetc(f)) != EOF)
		lines += c == '\n';
	fprintf(f, "run %d\n", lines + 1);
	fclose(f);
	return lines;
}

static int mpiio(const char *dir, int rank)
{
	MPI_File fh;
	snprintf(path, sizeof path, "%s/out.dat", dir);
	MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
	if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) !=
	    MPI_SUCCESS) {
		fprintf(stderr, "%s exists: not overwriting results\n", path);
		return -1;
	}
	MPI_File_write_at(fh, rank * (MPI_Offset)sizeof rank, &rank, 1, MPI_INT, MPI_STATUS_IGNORE);
	MPI_File_close(&fh);
	return 0;
}

static int outdir(const char *dir)
{
	snprintf(path, sizeof path, "%s/out", dir);
	if (mkdir(path, 0755) != 0) {
		fprintf(stderr, "output directory %s: %s\n", path, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof path, "%s/out/result", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs("done\n", f);
	return fclose(f);
}

/* collect takes one message from each worker; taking rank 2's first in
 * excl mode waits for a message rank 1 never sends. */
static void collect(int size, int deadlock, int fd)
{
	char order[64] = "";
	for (int i = 1; i < size; i++) {
		int v;
		MPI_Status st;
		MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
		if (deadlock && i == 1 && st.MPI_SOURCE == 2)
			MPI_Recv(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		snprintf(order + strlen(order), sizeof order - strlen(order), "%d ", st.MPI_SOURCE);
	}
	if (fd >= 0) {
		dprintf(fd, "%s\n", order);
		close(fd);
	}
}

int main(int argc, char **argv)
{
	int rank, size, v = 0, fd = -1;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 3) {
		fprintf(stderr, "usage: files_outputs excl|log|mpiio|mkdir DIR\n");
		return 2;
	}
	const char *mode = argv[1], *dir = argv[2];
	if (strcmp(mode, "mpiio") == 0 && mpiio(dir, rank) != 0)
		return 1;
	if (rank == 0) {
		int resumed = 0;
		if ((strcmp(mode, "excl") == 0 && (fd = excl(dir)) < 0) || (strcmp(mode, "mkdir") == 0 && outdir(dir) != 0))
			return 1;
		if (strcmp(mode, "log") == 0)
			resumed = log_lines(dir) > 0;
		MPI_Bcast(&resumed, 1, MPI_INT, 0, MPI_COMM_WORLD);
		if (resumed)
			MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
		collect(size, strcmp(mode, "excl") == 0, fd);
	} else {
		int resumed;
		MPI_Bcast(&resumed, 1, MPI_INT, 0, MPI_COMM_WORLD);
		if (resumed)
			MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
		v = rank;
		if (rank == 2)
			usleep(300000); /* the first run takes rank 1's message first */
		MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
