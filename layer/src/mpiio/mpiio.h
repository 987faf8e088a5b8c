/*
 * mpivet interposition layer: what MPI-IO calls need beyond their
 * parameters (files.c). Called by the generated wrappers only.
 */
#ifndef MPIVET_MPIIO_H
#define MPIVET_MPIIO_H

#include <mpi.h>
#include <stdint.h>

void mpivet_file_open(uint64_t logref, const char *name, int amode);
void mpivet_file_view(uint64_t logref, MPI_Datatype etype, const char *datarep, int bad);
void mpivet_file_opened(MPI_File fh, const char *name);
void mpivet_file_closed(MPI_File fh);
void mpivet_file_error(MPI_File fh);
void mpivet_file_error_named(const char *name);
void mpivet_file_settle(MPI_Request *r);

#endif
