/*
 * What the files of the recorder share (record.h is what the layers above
 * see). Hidden in the library.
 */
#ifndef MPIVET_RECORD_INTERNAL_H
#define MPIVET_RECORD_INTERNAL_H

#include <signal.h>

#pragma GCC visibility push(hidden)

/* log.c: the services registered, called back */
int mpivet_service_fault(int sig, void *siginfo, void *ucontext); /* a SIGSEGV or SIGTRAP is a service's own */
void mpivet_services_log_opened(void);
void mpivet_services_initialized(int rank);
int mpivet_threads_calling(void); /* threads that have called MPI so far */
void mpivet_thread_named(void);     /* log who the calling thread is (identity.c) */
void mpivet_thread_slotted(int i);  /* the calling thread took slot i (joins.c) */

/* crash.c */
void mpivet_install_crash_handlers(void);
void mpivet_install_error_handler(void);

/* signals.c: the program's dispositions of the signals the layer owns */
void mpivet_adopt_signal(int sig, const struct sigaction *cur);
void mpivet_program_action(int sig, struct sigaction *out);
int mpivet_program_blocks(int sig, void *ucontext);
void mpivet_signal_pend(int sig);
void mpivet_signal_deliver(int sig, const struct sigaction *pa, siginfo_t *si, void *ucontext);

/* timing.c: start-up timestamps, with MPIVET_TIMING set */
void mpivet_timing_open(const char *dir, const char *host);
void mpivet_stamp(const char *phase);

#pragma GCC visibility pop

#endif
