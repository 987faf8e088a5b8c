/* The target's own loads and stores during another rank's passive-target
 * epoch, with nothing ordering them (2 ranks): rank 1 stores into the byte
 * an MPI_Put of rank 0 writes under an exclusive lock, loads a byte rank
 * 0's MPI_Put in MPI_Win_lock_all writes before receiving the message rank
 * 0 sends after its flush, and stores into a byte an MPI_Get reads. The
 * window is MPI_Win_allocate's; the last case repeats the first on a window
 * of MPI_Win_create, which is watched under MPICH only (Open MPI's Put into
 * it is a peer's process_vm_writev). The twin is clean_rma_target_passive.c.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, *mem, v = 1, got = 0;
	MPI_Win win, cwin;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
	volatile int *vm = mem;
	for (int i = 0; i < 64; i++)
		vm[i] = 0;
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
		MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win); // want "rma-race"
		MPI_Win_unlock(1, win);
	} else {
		vm[0] = 2; // want "rma-race"
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		MPI_Win_lock_all(0, win);
		MPI_Put(&v, 1, MPI_INT, 1, 8, 1, MPI_INT, win); // want "rma-race"
		MPI_Win_flush(1, win);
		MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
		MPI_Win_unlock_all(win);
	} else {
		got = vm[8]; // want "rma-race"
		MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
		MPI_Get(&got, 1, MPI_INT, 1, 16, 1, MPI_INT, win); // want "rma-race"
		MPI_Win_unlock(1, win);
	} else {
		vm[16] = 3; // want "rma-race"
	}
	MPI_Barrier(MPI_COMM_WORLD);

	int *cmem = NULL;
	long pg = 4096;
	if (posix_memalign((void **)&cmem, pg, 2 * pg))
		MPI_Abort(MPI_COMM_WORLD, 1);
	volatile int *cv = cmem;
	MPI_Win_create(cmem, 2 * pg, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &cwin);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, cwin);
		MPI_Put(&v, 1, MPI_INT, 1, 4, 1, MPI_INT, cwin); // want(mpich) "rma-race"
		MPI_Win_unlock(1, cwin);
	} else {
		cv[4] = 2; // want(mpich) "rma-race"
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_free(&cwin);
	free(cmem);
	MPI_Win_free(&win);
	printf("%d\n", got >= 0);
	MPI_Finalize();
	return 0;
}
