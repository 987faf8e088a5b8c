/*
 * declared/: the buffers the program gives calls with a count and datatype,
 * for the check of a buffer's declared type against its datatype
 * (checks/typematch, declared.go): the program's debug information says
 * what a global or a local variable holds; the layer only says which
 * address a call was given with which datatype, and where the calling
 * function's frame was. Below arguments/ (which calls it for every valid
 * buffer, count and datatype); above signatures/ and record/.
 */
#ifndef MPIVET_DECLARED_H
#define MPIVET_DECLARED_H

#include <mpi.h>
#include <stdint.h>

/* mpivet_declared notes that the call in progress gives parameter param
 * (its index), at buf, count elements of datatype t (count -1: counts per
 * rank). Each call site, buffer and datatype is logged once
 * (api.MetaDeclared), up to a bound per call site. */
void mpivet_declared(unsigned call, int param, uint64_t buf, int64_t count, MPI_Datatype t);

#endif
