/* mpivet's demo: a 1-D halo exchange with three bugs that the program's
 * output never shows.
 *   - the strided halo datatype is created every iteration and never freed
 *   - the last iteration's send to the right neighbour is never completed
 *   - the communicator duplicated for the solver is never freed
 * Run: scripts/demo
 */
#include <mpi.h>
#include <stdio.h>

#define N 64

int main(int argc, char **argv)
{
	int rank, size;
	double u[N + 2] = {0}, sum = 0, total;
	MPI_Comm comm;
	MPI_Init(&argc, &argv);
	MPI_Comm_dup(MPI_COMM_WORLD, &comm);
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	int left = (rank + size - 1) % size, right = (rank + 1) % size;
	for (int i = 1; i <= N; i++)
		u[i] = rank * N + i;
	for (int it = 0; it < 5; it++) {
		MPI_Datatype halo;
		MPI_Request reqs[4];
		MPI_Type_vector(1, 1, 1, MPI_DOUBLE, &halo);
		MPI_Type_commit(&halo);
		MPI_Irecv(&u[0], 1, halo, left, 0, comm, &reqs[0]);
		MPI_Irecv(&u[N + 1], 1, halo, right, 1, comm, &reqs[1]);
		MPI_Isend(&u[N], 1, halo, right, 0, comm, &reqs[2]);
		MPI_Isend(&u[1], 1, halo, left, 1, comm, &reqs[3]);
		int n = it == 4 ? 3 : 4; /* bug: the last Isend is not waited for */
		MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
		for (int i = 1; i <= N; i++)
			u[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
	}
	for (int i = 1; i <= N; i++)
		sum += u[i];
	MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
	if (rank == 0)
		printf("total = %g\n", total);
	MPI_Finalize();
	return 0;
}
