/* MPI_Waitsome chooses a set of requests: rank 0 receives two rounds of
 * messages from ranks 1 and 2 with Waitsome loops, and rank 2 sends its
 * first late, so the native run returns one request at a time. Exploration
 * forces the other orders (and both at once); every one gives the same sums.
 * mpivet: np=3 verdict=ok
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

static void expect(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "wrong: %s\n", what);
		MPI_Abort(MPI_COMM_WORLD, 3);
	}
}

int main(int argc, char **argv)
{
	int rank, size, v[2], n, idx[2];
	MPI_Request r[2];
	MPI_Status st[2];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 3)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (int round = 0; round < 2; round++) {
		if (rank == 0) {
			int sum = 0;
			for (int i = 0; i < 2; i++)
				MPI_Irecv(&v[i], 1, MPI_INT, i + 1, round, MPI_COMM_WORLD, &r[i]);
			for (int got = 0; got < 2; got += n) {
				MPI_Waitsome(2, r, &n, idx, round ? MPI_STATUSES_IGNORE : st);
				expect(n >= 1 && n <= 2 - got, "Waitsome count");
				for (int j = 0; j < n; j++) {
					expect(round || st[j].MPI_SOURCE == idx[j] + 1, "Waitsome source");
					expect(v[idx[j]] == 10 * (idx[j] + 1) + round, "Waitsome message");
					sum += v[idx[j]];
				}
			}
			expect(sum == 30 + 2 * round, "Waitsome sum");
		} else {
			int a = 10 * rank + round;
			if (rank == 2 && round == 0)
				usleep(100000);
			MPI_Send(&a, 1, MPI_INT, 0, round, MPI_COMM_WORLD);
		}
	}
	MPI_Finalize();
	return 0;
}
