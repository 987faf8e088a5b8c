/* System calls on window memory between MPI calls (2 ranks): each rank
 * fills its window from a file with read(2) and a large fread (which the C
 * library turns into a read(2) into the window) right after
 * MPI_Win_allocate and MPI_Win_create, other ranks then access it in
 * passive-target epochs ordered by barriers, and each rank writes its
 * window to a file with write(2) and fwrite between the epochs and reads
 * the file back. Correct: the run must be clean and print what it prints
 * natively.
 * mpivet: np=2 verdict=ok sameoutput=1
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define N 4096 /* ints: four pages */

static void expect(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "wrong %s\n", what);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

/* fill reads the window's memory from file f: half with read(2), half with fread. */
static void fill(FILE *f, int *mem)
{
	rewind(f);
	expect(read(fileno(f), mem, N / 2 * sizeof(int)) == N / 2 * sizeof(int), "read");
	expect(fseek(f, N / 2 * sizeof(int), SEEK_SET) == 0, "fseek");
	expect(fread(mem + N / 2, sizeof(int), N / 2, f) == N / 2, "fread");
}

/* dump writes the window's memory to file g with write(2) and fwrite, and
 * returns the sum of what reads back. */
static long dump(FILE *g, const int *mem)
{
	rewind(g);
	expect(write(fileno(g), mem, N / 2 * sizeof(int)) == N / 2 * sizeof(int), "write");
	expect(fseek(g, N / 2 * sizeof(int), SEEK_SET) == 0, "fseek");
	expect(fwrite(mem + N / 2, sizeof(int), N / 2, g) == N / 2, "fwrite");
	expect(fflush(g) == 0, "fflush");
	rewind(g);
	long sum = 0;
	int v;
	while (fread(&v, sizeof v, 1, g) == 1)
		sum += v;
	return sum;
}

/* cases runs the epochs on window win over mem, filled from f, and prints
 * (rank 0) what each rank's window sums to after them. */
static void cases(int rank, FILE *f, FILE *g, int *mem, MPI_Win win, const char *name)
{
	fill(f, mem);
	MPI_Barrier(MPI_COMM_WORLD);
	int v = 1000, got = -1;
	if (rank == 0) {
		MPI_Win_lock_all(0, win);
		MPI_Put(&v, 1, MPI_INT, 1, 7, 1, MPI_INT, win);
		MPI_Get(&got, 1, MPI_INT, 1, N - 1, 1, MPI_INT, win);
		MPI_Win_unlock_all(win);
		expect(got == N - 1 + 1, "Get of the read data");
	}
	MPI_Barrier(MPI_COMM_WORLD);
	long sum = dump(g, mem), sums[2];
	MPI_Gather(&sum, 1, MPI_LONG, sums, 1, MPI_LONG, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("%s: %ld %ld\n", name, sums[0], sums[1]);
}

int main(int argc, char **argv)
{
	int rank, *mem;
	MPI_Win win;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	FILE *f = tmpfile(), *g = tmpfile();
	expect(f && g, "tmpfile");
	for (int i = 0; i < N; i++) {
		int v = i + rank;
		expect(fwrite(&v, sizeof v, 1, f) == 1, "data");
	}
	expect(fflush(f) == 0, "fflush");

	MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
	cases(rank, f, g, mem, win, "allocate");
	MPI_Win_free(&win);

	long pg = sysconf(_SC_PAGESIZE);
	if (posix_memalign((void **)&mem, pg, N * sizeof(int)))
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Win_create(mem, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	cases(rank, f, g, mem, win, "create");
	MPI_Win_free(&win);
	free(mem);
	fclose(f);
	fclose(g);
	MPI_Finalize();
	return 0;
}
