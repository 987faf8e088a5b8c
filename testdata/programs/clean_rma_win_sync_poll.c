/* A target polling a flag in its own window (2 ranks), the unified memory
 * model's idiom (MPI 4.0 §12.7, the polling examples): inside
 * MPI_Win_lock_all, rank 0 Puts the data into rank 1's window, flushes,
 * then Puts the flag and flushes; rank 1 loads the flag between calls to
 * MPI_Win_sync (and
 * MPI_Iprobe, which makes progress under MPIs that need it) until it is set, calls MPI_Win_sync once more and reads the
 * data. Three rounds, each with its own flag. Correct: no race is
 * reported.
 * mpivet: np=2 verdict=ok
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 3

int main(int argc, char **argv)
{
	int rank, *mem, model, flag;
	MPI_Win win;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
	for (int i = 0; i < 64; i++)
		mem[i] = 0;
	int *m;
	MPI_Win_get_attr(win, MPI_WIN_MODEL, &m, &flag);
	model = flag ? *m : -1;
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_lock_all(0, win);
	for (int r = 0; r < ROUNDS; r++) {
		if (rank == 0) {
			int data = 100 + r, one = 1;
			MPI_Put(&data, 1, MPI_INT, 1, 32 + r, 1, MPI_INT, win);
			MPI_Win_flush(1, win);
			MPI_Put(&one, 1, MPI_INT, 1, r, 1, MPI_INT, win);
			MPI_Win_flush(1, win);
		} else {
			volatile int *f = &mem[r];
			while (*f == 0) {
				/* progress for MPIs whose Puts need the target's */
				MPI_Iprobe(0, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
				MPI_Win_sync(win);
			}
			MPI_Win_sync(win);
			if (mem[32 + r] != 100 + r) {
				fprintf(stderr, "wrong data in round %d\n", r);
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
		}
	}
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1)
		printf("model %s, %d rounds\n", model == MPI_WIN_UNIFIED ? "unified" : "separate", ROUNDS);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
