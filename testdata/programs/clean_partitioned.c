/* Partitioned communication (MPI 4.0) used correctly: rank 0 sends 4
 * partitions of 2 ints to rank 1 three times through one pair of
 * persistent requests, marking the partitions ready one by one
 * (MPI_Pready), as a range (MPI_Pready_range) and as a list
 * (MPI_Pready_list); rank 1 polls a partition with MPI_Parrived before its
 * wait. A message on MPI_COMM_WORLD follows each exchange; both requests
 * are freed. Open MPI 4.1 has no partitioned communication.
 * mpivet: np=2 verdict=ok mpi=mpich sameoutput=1
 */
#include <mpi.h>
#include <stdio.h>

#define PARTS 4
#define COUNT 2

static void send_round(int it, int *buf, MPI_Request r)
{
	int list[PARTS] = {3, 1, 0, 2};
	MPI_Start(&r);
	for (int i = 0; i < PARTS * COUNT; i++)
		buf[i] = 10 * it + i;
	if (it == 0)
		for (int p = 0; p < PARTS; p++)
			MPI_Pready(p, r);
	else if (it == 1)
		MPI_Pready_range(0, PARTS - 1, r);
	else
		MPI_Pready_list(PARTS, list, r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
	int rank, buf[PARTS * COUNT] = {0}, token = 0, sum = 0;
	MPI_Request r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		MPI_Psend_init(buf, PARTS, COUNT, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
	else
		MPI_Precv_init(buf, PARTS, COUNT, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
	for (int it = 0; it < 3; it++) {
		if (rank == 0) {
			send_round(it, buf, r);
			MPI_Recv(&token, 1, MPI_INT, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			int arrived = 0;
			MPI_Startall(1, &r);
			while (!arrived)
				MPI_Parrived(r, PARTS - 1, &arrived);
			MPI_Wait(&r, MPI_STATUS_IGNORE);
			for (int i = 0; i < PARTS * COUNT; i++)
				sum += buf[i];
			MPI_Send(&sum, 1, MPI_INT, 0, 6, MPI_COMM_WORLD);
		}
	}
	MPI_Request_free(&r);
	if (rank == 0)
		printf("last sum %d\n", token);
	MPI_Finalize();
	return 0;
}
