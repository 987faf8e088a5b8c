/* Datatypes that look suspicious and are correct: a vector with a negative
 * stride and an hindexed type with a negative displacement, sent and
 * received without two entries on one byte; a resized type with a negative
 * lower bound, received twice in a row; a struct with a zero-length block;
 * a duplicate of a committed type (committed with it) used to receive; a
 * subarray whose start is its last allowed one and a darray over the two
 * ranks; an overlapping type used only to send; a type made and freed
 * without ever being committed or used. No finding.
 * mpivet: np=2 verdict=ok
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, a[16] = {0}, b[16] = {0}, lens[2] = {2, 2}, ilens[3] = {1, 0, 1};
	int sizes[2] = {4, 4}, subs[2] = {2, 2}, starts[2] = {2, 2};
	int gs[1] = {8}, dist[1] = {MPI_DISTRIBUTE_BLOCK}, dargs[1] = {MPI_DISTRIBUTE_DFLT_DARG}, ps[1] = {2};
	MPI_Aint disps[2] = {8, -8}, sdisps[3] = {0, 8, 4}, odisps[2] = {0, 4};
	MPI_Datatype down, back, pair, shifted, zero, dup, sub, dar, overlapping, unused;
	MPI_Datatype stypes[3] = {MPI_INT, MPI_DOUBLE, MPI_INT};
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int peer = 1 - rank;
	MPI_Type_vector(4, 1, -2, MPI_INT, &down); /* a[6], a[4], a[2], a[0] */
	MPI_Type_create_hindexed(2, lens, disps, MPI_INT, &back);
	MPI_Type_contiguous(2, MPI_INT, &pair);
	MPI_Type_create_resized(pair, -4, 12, &shifted);
	MPI_Type_create_struct(3, ilens, sdisps, stypes, &zero);
	MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &sub);
	MPI_Type_create_darray(2, rank, 1, gs, dist, dargs, ps, MPI_ORDER_C, MPI_INT, &dar);
	MPI_Type_create_hindexed(2, lens, odisps, MPI_INT, &overlapping);
	MPI_Type_vector(2, 3, 1, MPI_INT, &unused); /* overlaps, never committed, never used */
	MPI_Type_free(&unused);
	MPI_Datatype all[] = {down, back, shifted, zero, sub, dar, overlapping};
	for (int i = 0; i < 7; i++)
		MPI_Type_commit(&all[i]);
	down = all[0], back = all[1], shifted = all[2], zero = all[3], sub = all[4], dar = all[5], overlapping = all[6];
	MPI_Type_dup(back, &dup);
	MPI_Sendrecv(a + 6, 1, down, peer, 0, b + 6, 1, down, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Sendrecv(a + 4, 1, back, peer, 1, b + 4, 1, dup, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Sendrecv(a + 1, 2, shifted, peer, 2, b + 1, 2, shifted, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Sendrecv(a, 1, zero, peer, 3, b, 1, zero, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Sendrecv(a, 1, sub, peer, 4, b, 1, sub, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Sendrecv(a, 1, dar, peer, 5, b, 1, dar, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Sendrecv(a, 1, overlapping, peer, 6, b, 4, MPI_INT, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Bcast(a + 6, 1, down, 0, MPI_COMM_WORLD);
	MPI_Type_free(&down);
	MPI_Type_free(&back);
	MPI_Type_free(&dup);
	MPI_Type_free(&pair);
	MPI_Type_free(&shifted);
	MPI_Type_free(&zero);
	MPI_Type_free(&sub);
	MPI_Type_free(&dar);
	MPI_Type_free(&overlapping);
	MPI_Finalize();
	return 0;
}
