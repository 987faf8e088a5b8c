/*
 * The one reader of MPI datatype constructors (datatypes/walk.c), for the
 * two parts of the layer that take types apart: the type signatures
 * (signatures/, which basic types a message holds, in order) and the buffer
 * checker's byte maps (buffers/, which bytes a buffer covers). Both walk a
 * type's construction down to its basic types, one level at a time, with
 * MPI_Type_get_envelope and MPI_Type_get_contents; what each combiner means
 * (how many copies of which type, at which displacements) is decoded here
 * once. The callers recurse, each its own way: signatures multiply the
 * copies of a homogeneous part without visiting them, byte maps visit every
 * copy's displacement.
 */
#ifndef MPIVET_WALK_H
#define MPIVET_WALK_H

#include <mpi.h>
#include <stdint.h>

/* One level of a datatype: the groups of copies it is made of. A struct
 * has a group per member, a derived type of any other combiner one (copies
 * of its one old type), a basic type none. */
struct mpivet_type_parts {
	int combiner;   /* MPI_COMBINER_* */
	int ngroups;
	int *ints;      /* the contents, as MPI_Type_get_contents gives them */
	MPI_Aint *addrs;
	MPI_Datatype *types;
	int ntypes;
	int64_t ext0;   /* the extent of types[0] */
};

enum {
	MPIVET_TYPE_UNKNOWN = -1, /* not decoded (MPI_Type_create_darray, an error): nothing to close */
	MPIVET_TYPE_BASIC = 0,    /* a named type, or a Fortran MPI_Type_create_f90_* one: nothing to close */
	MPIVET_TYPE_DERIVED = 1,  /* groups of copies of other types: close it after use */
};

/* mpivet_type_open decodes one level of t into *p (p->combiner is set for
 * a basic type too). */
int mpivet_type_open(MPI_Datatype t, struct mpivet_type_parts *p);

/* mpivet_type_close frees what mpivet_type_open of a derived type took. */
void mpivet_type_close(struct mpivet_type_parts *p);

/* mpivet_type_group gives the type of group g's copies. */
MPI_Datatype mpivet_type_group(const struct mpivet_type_parts *p, int g);

/* mpivet_type_copies gives how many copies group g holds. */
uint64_t mpivet_type_copies(const struct mpivet_type_parts *p, int g);

/* mpivet_type_each calls fn with the type and the byte displacement (disp
 * plus its own) of every copy of group g, in the order of the type map,
 * until fn returns non-zero. It returns that value, 0 when every copy was
 * visited, -1 when the copies cannot be told (a subarray of more than 32
 * dimensions). */
int mpivet_type_each(const struct mpivet_type_parts *p, int g, int64_t disp,
		     int (*fn)(void *ctx, MPI_Datatype t, int64_t disp), void *ctx);

/* mpivet_type_extent gives the extent of t (0 if the MPI does not say). */
int64_t mpivet_type_extent(MPI_Datatype t);

/* mpivet_type_hold gives a reference to t that stays valid after the
 * program frees t (a duplicate of a derived type; a predefined type
 * itself); mpivet_type_release drops it (only a held type: a program's
 * derived type given to it would be freed). */
MPI_Datatype mpivet_type_hold(MPI_Datatype t);
void mpivet_type_release(MPI_Datatype *held);

#endif
