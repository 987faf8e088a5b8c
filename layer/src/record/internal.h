/*
 * What the files of the recorder share (record.h is what the layers above
 * see). Hidden in the library.
 */
#ifndef MPIVET_RECORD_INTERNAL_H
#define MPIVET_RECORD_INTERNAL_H

#pragma GCC visibility push(hidden)

/* recorder.c: whether a SIGSEGV is a service's own (a protected page) */
int mpivet_service_fault(void *siginfo, void *ucontext);

/* crash.c */
void mpivet_install_crash_handlers(void);
void mpivet_install_error_handler(void);

#pragma GCC visibility pop

#endif
