/* Fault injection: a crash in a thread of the MPI library while the
 * program's MPI_Finalize runs, as Open MPI 4.1 rarely does on a heavily
 * loaded machine. Rank 0's helper thread waits until the main thread is in
 * MPI_Finalize (rank 1 enters it 3 s later, so rank 0's waits), then
 * sends SIGSEGV to the newest of Open MPI's own threads (PMIx's progress
 * thread), which the library created and which never calls MPI. mpivet
 * reports that as mpi-library-crash, a warning, not as the program's
 * failure; thread_crash_in_finalize.c is the program's own thread crashing
 * at the same point, which stays a program-failure.
 * mpivet: np=2 verdict=ok mpi=openmpi
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile int finalizing;

static void *injector(void *arg)
{
	(void)arg;
	while (!finalizing)
		usleep(1000);
	usleep(200000);
	pid_t self = gettid(), pid = getpid(), victim = 0;
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		pid_t t = atoi(e->d_name);
		if (t > 0 && t != pid && t != self && t > victim)
			victim = t;
	}
	if (d)
		closedir(d);
	if (victim)
		syscall(SYS_tgkill, pid, victim, SIGSEGV);
	return NULL;
}

int main(int argc, char **argv)
{
	int rank;
	pthread_t t;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		pthread_create(&t, NULL, injector, NULL);
	else
		sleep(3);
	finalizing = 1;
	MPI_Finalize(); // want "mpi-library-crash"
	if (rank == 0)
		pthread_join(t, NULL);
	return 0;
}
