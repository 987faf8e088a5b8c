#ifndef MPIVET_DETERMINISM_H
#define MPIVET_DETERMINISM_H

#include "../record/record.h"

/* Deterministic mode (determinism/, dt_seed 002, dMPI): wildcard receives and
 * probes take the earliest message by logical time, and the completions a
 * program can observe (Test*, Iprobe, Waitany, Waitsome) happen K logical
 * steps after their call, whatever the network does. The hooks see the
 * wrapper's parameters by address, like the clock protocol's (clocks.h),
 * and run before its pre hook and after its post hook. */
extern int mpivet_dt_on;
void mpivet_dt_pre(unsigned call, uint64_t logref, void **k);
void mpivet_dt_post(unsigned call, uint64_t logref, void **k, int rc);

#endif
