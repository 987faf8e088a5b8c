/*
 * arguments/: the rules of the standard about a call's arguments, checked
 * in the rank before the call reaches the MPI (arguments.c says which).
 * A broken rule is logged as a META_ARGUMENT record, whose header is stored
 * last (record/record.h): it is in the log even when the MPI then ends the
 * job inside the call, which is what an MPI does with an invalid argument
 * under MPI_ERRORS_ARE_FATAL, each in its own words and without the
 * program's line. The call then proceeds as the program made it.
 *
 * The generated wrappers call mpivet_args_pre before the other hooks (which
 * give the arguments to the MPI) and mpivet_args_post when a call made or
 * freed a communicator, datatype or operation, whose life the checks follow.
 */
#ifndef MPIVET_ARGUMENTS_H
#define MPIVET_ARGUMENTS_H

#include <mpi.h>

extern int mpivet_args_on; /* the checks run (layer.conf arguments=off: not) */
/* set by a Fortran wrapper around mpivet_args_pre where an array of handles
 * holds Fortran ones (MPI_Type_create_struct's types) */
extern __thread int mpivet_args_fortran __attribute__((tls_model("initial-exec")));

/* k[i] points to parameter i of the call, as for the clock protocol's hooks.
 * mpivet_args_pre gives 1 if a handle is not one (null, freed): the other
 * hooks then leave the call alone rather than give it to the MPI first. */
int mpivet_args_pre(unsigned call, void *const *k);
void mpivet_args_post(unsigned call, void *const *k, int rc);

#endif
