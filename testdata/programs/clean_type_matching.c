/* Sends and receives whose types match although they are written
 * differently; none is a type mismatch: MPI_INT and MPI_INT32_T; a struct
 * sent twice and received as a contiguous type of two; a vector of doubles
 * received as plain doubles; data packed with MPI_Pack sent as MPI_PACKED and
 * received as ints, and ints received as MPI_PACKED and unpacked; signed and
 * unsigned char; an empty message; a persistent send and receive; and a
 * derived type freed and a different one created (its handle may be reused).
 * mpivet: np=2 verdict=ok
 */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

struct pair {
	int i;
	double d;
};

int main(int argc, char **argv)
{
	int rank, peer;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	peer = 1 - rank;
	if (rank > 1) {
		MPI_Finalize();
		return 0;
	}
	/* the struct, one at a time and two at a time */
	MPI_Datatype pt, two;
	int bl[2] = {1, 1};
	MPI_Aint disp[2] = {offsetof(struct pair, i), offsetof(struct pair, d)};
	MPI_Datatype ts[2] = {MPI_INT, MPI_DOUBLE};
	MPI_Type_create_struct(2, bl, disp, ts, &pt);
	MPI_Type_commit(&pt);
	MPI_Type_contiguous(2, pt, &two);
	MPI_Type_commit(&two);
	/* a column of a 4x4 matrix */
	MPI_Datatype col;
	MPI_Type_vector(4, 1, 4, MPI_DOUBLE, &col);
	MPI_Type_commit(&col);

	struct pair ps[2] = {{1, 1.0}, {2, 2.0}};
	double m[16] = {0}, c[4];
	int32_t i32[3] = {1, 2, 3};
	int ints[3];
	char packed[64];
	int pos = 0;
	signed char sc[2] = {1, 2};
	unsigned char uc[2];
	if (rank == 0) {
		MPI_Send(i32, 3, MPI_INT32_T, 1, 0, MPI_COMM_WORLD);
		MPI_Send(ps, 2, pt, 1, 1, MPI_COMM_WORLD);
		MPI_Send(m, 1, col, 1, 2, MPI_COMM_WORLD);
		MPI_Pack(i32, 3, MPI_INT, packed, sizeof packed, &pos, MPI_COMM_WORLD);
		MPI_Send(packed, pos, MPI_PACKED, 1, 3, MPI_COMM_WORLD);
		MPI_Send(i32, 3, MPI_INT, 1, 4, MPI_COMM_WORLD);
		MPI_Send(sc, 2, MPI_SIGNED_CHAR, 1, 5, MPI_COMM_WORLD);
		MPI_Send(c, 0, MPI_DOUBLE, 1, 6, MPI_COMM_WORLD);
	} else {
		MPI_Recv(ints, 3, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(ps, 1, two, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(c, 4, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(ints, 3, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(packed, sizeof packed, MPI_PACKED, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Unpack(packed, sizeof packed, &pos, ints, 3, MPI_INT, MPI_COMM_WORLD);
		MPI_Recv(uc, 2, MPI_UNSIGNED_CHAR, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(ints, 0, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	/* a persistent exchange */
	MPI_Request pr[2];
	double x = rank, y;
	MPI_Send_init(&x, 1, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD, &pr[0]);
	MPI_Recv_init(&y, 1, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD, &pr[1]);
	for (int k = 0; k < 3; k++) {
		MPI_Startall(2, pr);
		MPI_Waitall(2, pr, MPI_STATUSES_IGNORE);
	}
	MPI_Request_free(&pr[0]);
	MPI_Request_free(&pr[1]);
	/* types freed, and new ones made, many times: handles come back */
	for (int k = 0; k < 20; k++) {
		MPI_Datatype a, b;
		MPI_Type_contiguous(2, MPI_DOUBLE, &a);
		MPI_Type_commit(&a);
		MPI_Sendrecv(m, 1, a, peer, 8, c, 2, MPI_DOUBLE, peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Type_free(&a);
		MPI_Type_contiguous(2, MPI_INT, &b);
		MPI_Type_commit(&b);
		MPI_Sendrecv(ints, 1, b, peer, 9, i32, 2, MPI_INT, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Type_free(&b);
	}
	MPI_Type_free(&pt);
	MPI_Type_free(&two);
	MPI_Type_free(&col);
	MPI_Finalize();
	return 0;
}
