/* Datatype constructors given arguments the standard makes erroneous
 * (MPI 4.0 §5.1.2-5.1.4), under MPI_ERRORS_RETURN so the run goes on past
 * each: negative counts and block lengths, MPI_DATATYPE_NULL among a
 * struct's types, a subarray's subsize above its size and start past its
 * end, a darray's rank outside the process grid and a grid that is not its
 * size, MPI_DATATYPE_NULL and a freed type as old types, the free of a
 * predefined type and a second free through the same handle. Each is
 * reported at its line (invalid-argument) before the MPI sees it; the MPI
 * then returns its own error (mpi-error), or, MPICH for the subarrays,
 * makes the type; MPICH dies of a division by zero in the last darray.
 * mpivet: np=1 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	MPI_Datatype t, gone, dbl = MPI_DOUBLE, types[2] = {MPI_INT, MPI_DATATYPE_NULL};
	int lens[2] = {1, -2}, disps[2] = {0, 4}, ones[2] = {1, 1};
	MPI_Aint adisps[2] = {0, 8};
	int sizes[2] = {4, 4}, subs[2] = {2, 5}, starts[2] = {0, 0}, subs2[2] = {2, 2}, starts2[2] = {3, 0};
	int gs[2] = {8, 8}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
	int dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, ps[2] = {1, 1}, ps2[2] = {2, 1};
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if (MPI_Type_contiguous(-1, MPI_INT, &t) == MPI_SUCCESS) MPI_Type_free(&t); // want "invalid-argument" "mpi-error"
	if (MPI_Type_vector(2, -1, 4, MPI_INT, &t) == MPI_SUCCESS) MPI_Type_free(&t); // want "invalid-argument" "mpi-error"
	if (MPI_Type_create_hvector(-3, 1, 16, MPI_INT, &t) == MPI_SUCCESS) MPI_Type_free(&t); // want "invalid-argument" "mpi-error"
	if (MPI_Type_indexed(2, lens, disps, MPI_INT, &t) == MPI_SUCCESS) MPI_Type_free(&t); // want "invalid-argument" "mpi-error"
	if (MPI_Type_create_struct(2, ones, adisps, types, &t) == MPI_SUCCESS) MPI_Type_free(&t); // want "invalid-argument" "mpi-error"
	if (MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t) == MPI_SUCCESS) MPI_Type_free(&t); // want "invalid-argument" want(openmpi) "mpi-error"
	if (MPI_Type_create_subarray(2, sizes, subs2, starts2, MPI_ORDER_C, MPI_INT, &t) == MPI_SUCCESS) MPI_Type_free(&t); // want "invalid-argument" want(openmpi) "mpi-error"
	if (MPI_Type_create_darray(1, 1, 2, gs, dist, dargs, ps, MPI_ORDER_C, MPI_INT, &t) == MPI_SUCCESS) MPI_Type_free(&t); // want "invalid-argument" "mpi-error"
	if (MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &t) == MPI_SUCCESS) MPI_Type_free(&t); // want "invalid-argument" "mpi-error"
	MPI_Type_contiguous(2, MPI_INT, &gone);
	t = gone;
	MPI_Type_free(&gone);
	MPI_Type_free(&gone); // want "invalid-argument" "mpi-error"
	if (MPI_Type_vector(2, 1, 2, t, &gone) == MPI_SUCCESS) MPI_Type_free(&gone); // want "invalid-argument"
	MPI_Type_free(&dbl); // want "invalid-argument" "mpi-error"
	/* last: MPICH divides by zero inside this call and the rank dies */
	if (MPI_Type_create_darray(1, 0, 2, gs, dist, dargs, ps2, MPI_ORDER_C, MPI_INT, &t) == MPI_SUCCESS) MPI_Type_free(&t); // want "invalid-argument" want(openmpi) "mpi-error" want(mpich) "program-failure"
	MPI_Finalize();
	return 0;
}
