/*
 * arguments/rules.h: what arguments.c shares with types.c, the rules about
 * datatypes: the record of a broken rule and the check of a datatype handle.
 */
#ifndef MPIVET_ARGS_RULES_H
#define MPIVET_ARGS_RULES_H

#include <mpi.h>
#include <stdint.h>

#include "objects.h"

/* args_report logs a broken rule (once per call site, parameter and rule):
 * the parameter (its index in the call), its value, the limit it broke,
 * and another parameter it is about (-1: none) with its value. */
void args_report(unsigned call, int param, int rule, int64_t value, int64_t limit, int other, int64_t ovalue);

/* args_check_type checks the datatype k[kt]; it gives its entry (NULL for
 * an invalid one). need_commit: it describes data (not a constructor's old
 * type). */
struct obj *args_check_type(unsigned call, int kt, void *const *k, int need_commit);

/* args_check_ctor checks the arguments of a datatype constructor (MPI 4.0
 * §5.1.2, §5.1.3, §5.1.4). */
void args_check_ctor(unsigned call, void *const *k);

/* args_check_written checks that n elements of the datatype k[kt] (its
 * entry o), which describe memory the call writes, write no byte twice. */
void args_check_written(unsigned call, int kt, void *const *k, int64_t n, struct obj *o);

#endif
