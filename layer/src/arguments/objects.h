/*
 * arguments/objects.c: what the argument checks know of the communicators,
 * datatypes and operations the program uses, by handle value: a small
 * open-addressing table, so that every check is one lookup. A handle is
 * never dereferenced (Open MPI's are pointers to memory a free gives back):
 * a freed handle is known as freed because its free was seen, and a handle
 * that a later call makes again (the MPI reuses values) is live again.
 *
 * Only a handle whose making was seen (born) is ever known as freed: one the
 * program got from a call the layer does not follow is adopted at its first
 * use, and forgotten when it is freed, since the MPI may give its value
 * again from such a call. A value made again while it is live is the same
 * object with one more reference (MPICH's MPI_Type_get_contents returns the
 * program's own derived datatypes so): it is freed when every reference is.
 */
#ifndef MPIVET_ARGS_OBJECTS_H
#define MPIVET_ARGS_OBJECTS_H

#include <stdint.h>

enum {
	OBJ_UNKNOWN,     /* a communicator made but not looked at yet */
	OBJ_LIVE,        /* a communicator with its facts, a user operation */
	OBJ_FREED,       /* freed: any use is erroneous until the value is made again */
	OBJ_UNCOMMITTED, /* a datatype the program made */
	OBJ_COMMITTED,   /* ... and committed */
	OBJ_PREDEFINED,  /* a datatype the program did not make, with its class */
};

/* A kind of entry of the table besides api.Obj*: a call site, parameter and
 * rule already reported (each is logged once: a loop that repeats a bad
 * argument the MPI lets pass does not fill the log). */
#define OBJ_SITE 100

struct obj {
	uint64_t h;
	uint8_t kind;  /* api.Obj* (MPIVET_OBJ_*); 0: empty slot */
	uint8_t state; /* OBJ_* */
	uint8_t inter; /* an intercommunicator */
	uint8_t cls;   /* a predefined datatype's classes for reductions */
	uint8_t born;  /* the call that made it was seen */
	int32_t refs;  /* references the program was given of a born object, less those it freed */
	int32_t size;  /* a communicator's size (the remote group's for an intercommunicator) */
	int32_t rank;  /* the rank's place in it */
	int32_t local; /* its local group's size */
	uint8_t spans; /* a datatype's extents below are known */
	int64_t lb, extent, tlb, textent; /* a datatype's (true) lower bound and extent */
	uint64_t made_pc;  /* where the call that made it was (0: not seen) */
	int32_t made_call; /* that call's id */
	uint8_t wdone;     /* a datatype's overlap below was looked for (types.c) */
	int32_t wleast;    /* the least count of it whose entries overlap (0: none found) */
	int64_t woff;      /* the first byte such a count writes twice, from the buffer's start */
};

/* args_find gives the object, or NULL if the table has none. */
struct obj *args_find(int kind, uint64_t h);
/* args_put gives the object, added (state OBJ_UNKNOWN) if the table has none. */
struct obj *args_put(int kind, uint64_t h);
void args_lock(void);
void args_unlock(void);

#endif
