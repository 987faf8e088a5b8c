/*
 * What the files of the recorder share (record.h is what the layers above
 * see). Hidden in the library.
 */
#ifndef MPIVET_RECORD_INTERNAL_H
#define MPIVET_RECORD_INTERNAL_H

#pragma GCC visibility push(hidden)

/* log.c: the services registered, called back */
int mpivet_service_fault(void *siginfo, void *ucontext); /* a SIGSEGV is a service's own (a protected page) */
void mpivet_services_log_opened(void);
void mpivet_services_initialized(int rank);
int mpivet_threads_calling(void); /* threads that have called MPI so far */

/* crash.c */
void mpivet_install_crash_handlers(void);
void mpivet_install_error_handler(void);

/* timing.c: start-up timestamps, with MPIVET_TIMING set */
void mpivet_timing_open(const char *dir, const char *host);
void mpivet_stamp(const char *phase);

#pragma GCC visibility pop

#endif
