/* A replay that diverges in one thread of a rank whose threads call MPI:
 * rank 0's thread 1 receives two messages from any source (rank 1's, then
 * rank 2's, which comes late: exploring the first receive forces it to rank
 * 2); its thread 2 first sends rank 1 a number of ticks that grows by one
 * in every run (it counts its runs in the file STAMP), then a last one
 * with MPI_Ssend, and only then lets thread 1 receive. Thread 2's calls
 * before the forced receive differ in every replay from its parent run's:
 * mpivet must see the replay diverge in thread 2, and name it. With
 * "fixed", thread 2 sends 3 ticks in every run: the replays repeat their
 * parent (thread 1 and 2 reach MPI in either order), no divergence. Used by
 * corpus.TestThreadDivergence, with --files=off (mpivet would restore
 * STAMP before every replay).
 * Usage: thread_multiple_diverge STAMP [fixed]
 */
#include <fcntl.h>
#include <mpi.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static pthread_barrier_t ticked;
static const char *stamp;
static int fixed;

static int ticks(void)
{
	struct stat st;
	int fd = open(stamp, O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (fixed || fd < 0 || write(fd, "x", 1) != 1 || fstat(fd, &st) != 0) {
		if (fd >= 0)
			close(fd);
		return 3;
	}
	close(fd);
	return (int)st.st_size;
}

static void *receiver(void *arg)
{
	int x;
	(void)arg;
	pthread_barrier_wait(&ticked);
	for (int i = 0; i < 2; i++)
		MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	return NULL;
}

static void *ticker(void *arg)
{
	int one = 1, zero = 0, n = ticks();
	(void)arg;
	for (int i = 0; i < n; i++)
		MPI_Send(&one, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
	MPI_Ssend(&zero, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
	pthread_barrier_wait(&ticked);
	return NULL;
}

int main(int argc, char **argv)
{
	int rank, provided, v = 1;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	if (provided < MPI_THREAD_MULTIPLE) {
		MPI_Finalize(); /* the MPI cannot run this test; nothing to check */
		return 0;
	}
	stamp = argc > 1 ? argv[1] : "thread_multiple_diverge.stamp";
	fixed = argc > 2 && strcmp(argv[2], "fixed") == 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		pthread_t t[2];
		pthread_barrier_init(&ticked, NULL, 2);
		pthread_create(&t[0], NULL, receiver, NULL);
		pthread_create(&t[1], NULL, ticker, NULL);
		pthread_join(t[0], NULL);
		pthread_join(t[1], NULL);
	} else {
		if (rank == 1)
			do
				MPI_Recv(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			while (v != 0);
		else
			usleep(300000);
		MPI_Send(&rank, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
