/* Attributes with copy and delete callbacks, as libraries cache their state
 * on the program's communicators: a keyval whose copy callback counts and
 * copies a reference-counted object (called by MPI_Comm_dup and
 * MPI_Comm_idup), whose delete callback releases it (called by
 * MPI_Comm_free, MPI_Comm_delete_attr, and by MPI_Finalize for the
 * attribute on MPI_COMM_SELF, which libraries rely on to clean up: it frees
 * a communicator there), and a communicator cached as an attribute of
 * another (an inner communicator, freed by the delete callback).
 * The callbacks must run exactly as often as natively: the layer's own
 * communicators must not copy or delete the program's attributes.
 * mpivet: np=3 verdict=ok sameoutput=1
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

struct state {
	int refs;
	MPI_Comm inner;
};

static int copies, deletes, rank = -1;

static int copy_fn(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
	struct state *s = in;
	s->refs++;
	copies++;
	*(void **)out = s;
	*flag = 1;
	(void)c, (void)key, (void)extra;
	return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm c, int key, void *val, void *extra)
{
	struct state *s = val;
	deletes++;
	if (--s->refs == 0) {
		if (s->inner != MPI_COMM_NULL)
			MPI_Comm_free(&s->inner);
		free(s);
	}
	(void)c, (void)key, (void)extra;
	return MPI_SUCCESS;
}

static int at_finalize(MPI_Comm c, int key, void *val, void *extra)
{
	if (rank == 0)
		printf("finalize: %d copies, %d deletes\n", copies, deletes);
	MPI_Comm_free((MPI_Comm *)val); /* freed at MPI_Finalize: no leak */
	free(val);
	(void)c, (void)key, (void)extra;
	return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
	int key, fin, flag, sum = 0;
	MPI_Comm a, b, c;
	MPI_Request r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_create_keyval(copy_fn, delete_fn, &key, NULL);
	MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &fin, NULL);
	MPI_Comm *cached = malloc(sizeof *cached);
	MPI_Comm_dup(MPI_COMM_WORLD, cached);
	MPI_Comm_set_attr(MPI_COMM_SELF, fin, cached);

	MPI_Comm_dup(MPI_COMM_WORLD, &a);
	struct state *s = malloc(sizeof *s);
	s->refs = 1;
	MPI_Comm_dup(MPI_COMM_WORLD, &s->inner);
	MPI_Comm_set_attr(a, key, s);
	MPI_Comm_dup(a, &b); /* copies: 1 */
	MPI_Comm_idup(b, &c, &r); /* copies: 2 */
	MPI_Wait(&r, MPI_STATUS_IGNORE);

	struct state *got;
	MPI_Comm_get_attr(c, key, &got, &flag);
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, got->inner);
	if (rank == 0)
		printf("flag %d, same %d, refs %d, sum %d\n", flag, got == s, s->refs, sum);
	MPI_Comm_free(&c);
	MPI_Comm_delete_attr(b, key);
	MPI_Comm_free(&b);
	if (rank == 0)
		printf("refs %d, copies %d, deletes %d\n", s->refs, copies, deletes);
	MPI_Comm_free(&a); /* the last reference: frees the inner communicator */
	MPI_Comm_free_keyval(&key);
	MPI_Finalize();
	return 0;
}
