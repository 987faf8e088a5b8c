/*
 * mpivet interposition layer, the bottom of the bottom layer: what log.c
 * defines (the log and the state page, their globals, the hooks and the
 * services' registry) and the record header's layout. record.h builds the
 * inline recording primitives on it; log.c itself uses none of them, so the
 * headers form a hierarchy: log.h, log.c, record.h, the rest.
 */
#ifndef MPIVET_LOG_H
#define MPIVET_LOG_H

#include <signal.h>
#include <stdint.h>

#include "../generated/format.h" /* record kinds, meta ids, state page words */

#define MPIVET_NOREC UINT64_MAX

/* The number of the calling thread among those that called MPI, in the
 * order they first did (0: the first; at most 255), set with its slot of the
 * state page (log.c). Every record's header carries it in its top byte, so
 * that the records of several threads read as one sequence per thread. */
extern __thread unsigned mpivet_thread_no __attribute__((tls_model("initial-exec")));

/* Who the calling thread is, the same in every run (identity.c): 0 for the
 * process's initial thread, else its path among the threads the program
 * created (api.MetaThread). Wildcard events carry it (clocks/core.c). */
extern __thread uint32_t mpivet_thread_id __attribute__((tls_model("initial-exec")));
void *(*mpivet_child(void *(*f)(void *), void *arg, void **box))(void *);
void mpivet_child_failed(void *(*start)(void *), void *box);

/* mpivet_header is the header of a record of nwords payload words
 * (record.h says the format), written by the calling thread. */
static inline uint64_t mpivet_header(uint64_t nwords, unsigned call, unsigned kind)
{
	return (8 + nwords * 8) | ((uint64_t)call << 32) | ((uint64_t)kind << 48) | ((uint64_t)mpivet_thread_no << 56);
}

/* Re-entry guard: non-zero while this thread is inside a wrapper, so MPI calls
 * made by MPI itself (MPICH's Fortran bindings call the C MPI_* functions) or
 * by the layer pass straight through. */
extern __thread int mpivet_guard __attribute__((tls_model("initial-exec")));

extern int mpivet_on;        /* the log is open: record */
extern int mpivet_inited;    /* process metadata written (after MPI init) */
extern int mpivet_mt;        /* MPI_THREAD_MULTIPLE: reserve records atomically */
/* MPI_THREAD_MULTIPLE, but only the thread that initialised MPI has called
 * MPI: the services may run as for a single thread (divergence, collective
 * signatures, one-sided values). Cleared when another thread calls MPI
 * (log.c), or from the start in a run with threads=off (layer.conf). */
extern int mpivet_mt_guard;
extern int mpivet_zero_buffering; /* standard-mode sends become synchronous (--buffering=zero) */
extern char *mpivet_base;    /* the mapped log */
extern uint64_t mpivet_pos;  /* next free byte */
extern uint64_t mpivet_cap;  /* usable bytes */
extern uint64_t mpivet_ready; /* bytes already populated (<= mpivet_cap) */

int mpivet_grow(uint64_t end);
void mpivet_overflow(uint64_t at);

/* The log's file, kept open: mpivet_grow reserves its blocks ahead of the
 * writer (-1 until the log is open), and its path. */
extern int mpivet_log_fd;
extern char mpivet_log_path[4400];

/* Room kept at the end of the log for its end marker (mpivet_overflow):
 * reserved past whatever the writer may use. */
#define MPIVET_LOG_TAIL 64

/* mpivet_reserve gives the file fd blocks from off for n bytes: 0, or the
 * error (ENOSPC, EDQUOT, EIO, ...). A mapping's store into a hole that the
 * file system cannot fill kills the process with SIGBUS; a reserved block
 * never does. */
int mpivet_reserve(int fd, uint64_t off, uint64_t n);

/* mpivet_cannot_write says on standard error, once per path, that the layer
 * could not write its record path (errno err), in the one form mpivet reads
 * from the launcher's output (launch.WriteError): the channel that needs no
 * room on the run directory's file system. */
void mpivet_cannot_write(const char *path, int err);

/* mpivet_commit_hook, when set, sees every entry and brief record that
 * mpivet_commit commits (call id, virtual log offset, call site). An upper
 * layer sets it (the divergence check of a guided replay); the recorder
 * knows nothing of it. */
extern void (*mpivet_commit_hook)(unsigned call, uint64_t off, uint64_t pc);

/* The state page (record.h) */
extern uint64_t *mpivet_state; /* MPIVET_STATE_SLOTS slots */
extern __thread uint64_t *mpivet_slot __attribute__((tls_model("initial-exec")));
uint64_t *mpivet_new_slot(void);

/* The services above the recorder (buffer checker, clock protocol,
 * divergence check) register here, from constructors that run before the
 * recorder's own (priority MPIVET_SERVICE_PRIORITY), and are called back:
 * the recorder never calls up into them by name. */
struct mpivet_service {
	void (*log_opened)(void);                            /* the log is open and layer.conf read (record/conf.h) */
	void (*initialized)(int rank);                       /* MPI is initialised (mpivet_post_init) */
	void (*thread)(void);                                /* a thread other than the first calls MPI */
	int (*fault)(int sig, void *siginfo, void *ucontext); /* a SIGSEGV or SIGTRAP: 1 if it was the service's own */
};
#define MPIVET_SERVICE_PRIORITY 200
void mpivet_register(const struct mpivet_service *s);

/* The kernel's signal dispositions and masks, past the program's
 * (record/signals.c): for the layer's own handlers. */
int mpivet_raw_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
int mpivet_raw_sigmask(int how, const sigset_t *set, sigset_t *old);
int mpivet_owned_signal(int sig);

/* Thread levels kept (levels.c): every wrapper counts the threads inside
 * MPI (mpivet_tl_inside; a thread's nested calls, made by MPI's callbacks,
 * once) and compares what it sees with the rule the level the program got
 * sets (mpivet_tl_rule, MPIVET_TL_* bits: 0 under MPI_THREAD_MULTIPLE
 * outside MPI_Init_thread and MPI_Finalize). A thread that breaks the rule
 * takes the slow path, mpivet_tl_broken, which logs MPIVET_META_THREAD_LEVEL. */
#define MPIVET_TL_ONE 1  /* one thread inside MPI at a time (SINGLE, FUNNELED, SERIALIZED) */
#define MPIVET_TL_MAIN 2 /* the main thread only (SINGLE, FUNNELED) */
#define MPIVET_TL_INIT 4 /* MPI_Init or MPI_Init_thread in progress */
#define MPIVET_TL_FINI 8 /* MPI_Finalize in progress, or returned */
extern int mpivet_tl_rule, mpivet_tl_inside;
extern __thread int mpivet_tl_depth __attribute__((tls_model("initial-exec")));
extern __thread int mpivet_tl_main __attribute__((tls_model("initial-exec"))); /* the thread that initialised MPI */
extern __thread int mpivet_tl_counted __attribute__((tls_model("initial-exec"))); /* its call is counted inside */
void mpivet_tl_starting(unsigned call);
void mpivet_tl_initialized(int provided);
void mpivet_tl_broken(unsigned call, int inside);
void mpivet_thread_words(uint64_t *w); /* 3 words: who the calling thread is (levels.c) */

/* The call site (return address) of the call this thread is in, set by
 * every wrapper on entry. */
extern __thread uint64_t mpivet_call_pc __attribute__((tls_model("initial-exec")));

/* mpivet_site_hook, when set, gives the call site to record for a
 * wrapper's return address: in a Python interpreter, a site standing for
 * the Python line that made the call (python/site.c). */
extern uint64_t (*mpivet_site_hook)(uint64_t pc);

/* mpivet_fault_site_hook, when set, gives the site of the Python line the
 * thread is executing, from a signal handler (an access the buffer checker
 * caught): 0 when it cannot be told without allocating (python/site.c). */
extern uint64_t (*mpivet_fault_site_hook)(void);

#endif
