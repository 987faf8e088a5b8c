/* Buffers whose datatypes match their declared types in every way MPI
 * allows, though some look suspicious: a char buffer and an int array as
 * MPI_BYTE, a structure through an MPI struct type made to match it, a
 * structure's double member as MPI_DOUBLE, MPI_INT over int32_t, MPI_LONG
 * over long and MPI_LONG_LONG over int64_t, MPI_C_BOOL over bool,
 * MPI_UNSIGNED_CHAR over uint8_t, MPI_C_DOUBLE_COMPLEX over double complex
 * and MPI_DOUBLE over its parts, a union sent as MPI_INT, an enum as
 * MPI_INT, a vector of doubles over a double matrix, an int32_t array passed
 * down to a function that moves it as MPI_INT, and a heap buffer (whose
 * type no debug information gives: nothing is said); and two idioms the
 * standard frowns on but that change no byte between like processes:
 * structures moved as MPI_CHAR, unsigned ints as MPI_INT.
 * mpivet: np=2 verdict=ok
 */
#include <complex.h>
#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

struct cell {
	int kind;
	double value;
};

union word {
	int i;
	float f;
};

enum color { RED, GREEN, BLUE };

char text[16] = "hello";
int raw[4];
struct cell cells[3];

/* The calls are made where the buffers are declared (a macro, not a
 * function, which would be given a pointer to them). */
#define exchange(rank, buf, n, t, tag)                                                       \
	do {                                                                                 \
		if ((rank) == 0)                                                             \
			MPI_Send(buf, n, t, 1, tag, MPI_COMM_WORLD);                         \
		else if ((rank) == 1)                                                        \
			MPI_Recv(buf, n, t, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);      \
	} while (0)

static void relay(int rank, void *buf, int n, MPI_Datatype t, int tag)
{
	exchange(rank, buf, n, t, tag);
}

int main(int argc, char **argv)
{
	int rank;
	int32_t i32[4] = {0};
	long l[2] = {0};
	int64_t i64[2] = {0};
	bool flags[3] = {false};
	uint8_t bytes[8] = {0};
	double complex z[2] = {0};
	union word w[2] = {{0}};
	enum color colors[3] = {RED, GREEN, BLUE};
	double matrix[4][4] = {{0}};
	unsigned counts[3] = {1, 2, 3};
	MPI_Datatype cell_type, column;
	int lens[2] = {1, 1};
	MPI_Aint displs[2] = {offsetof(struct cell, kind), offsetof(struct cell, value)};
	MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Type_create_struct(2, lens, displs, types, &cell_type);
	MPI_Type_commit(&cell_type);
	MPI_Type_vector(4, 1, 4, MPI_DOUBLE, &column);
	MPI_Type_commit(&column);
	double *heap = malloc(8 * sizeof *heap);

	if (rank == 0) {
		MPI_Send(text, 16, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
		MPI_Send(raw, (int)sizeof raw, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
		MPI_Send(text, 6, MPI_CHAR, 1, 2, MPI_COMM_WORLD);
	} else if (rank == 1) {
		MPI_Recv(text, 16, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(raw, (int)sizeof raw, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(text, 6, MPI_CHAR, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	exchange(rank, cells, 3, cell_type, 3);
	exchange(rank, &cells[1].value, 1, MPI_DOUBLE, 4);
	exchange(rank, i32, 4, MPI_INT, 5);
	exchange(rank, l, 2, MPI_LONG, 6);
	exchange(rank, i64, 2, MPI_LONG_LONG, 7);
	exchange(rank, flags, 3, MPI_C_BOOL, 8);
	exchange(rank, bytes, 8, MPI_UNSIGNED_CHAR, 9);
	exchange(rank, z, 2, MPI_C_DOUBLE_COMPLEX, 10);
	exchange(rank, z, 4, MPI_DOUBLE, 11);
	exchange(rank, w, 2, MPI_INT, 12);
	exchange(rank, colors, 3, MPI_INT, 13);
	exchange(rank, &matrix[0][1], 1, column, 14);
	exchange(rank, heap, 8, MPI_DOUBLE, 15);
	relay(rank, i32, 4, MPI_INT, 16);
	exchange(rank, cells, (int)sizeof cells, MPI_CHAR, 17);
	exchange(rank, counts, 3, MPI_INT, 18);
	MPI_Allreduce(MPI_IN_PLACE, i32, 4, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
	MPI_Bcast(matrix, 16, MPI_DOUBLE, 0, MPI_COMM_WORLD);

	free(heap);
	MPI_Type_free(&column);
	MPI_Type_free(&cell_type);
	MPI_Finalize();
	return 0;
}
