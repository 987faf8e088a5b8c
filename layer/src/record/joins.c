/*
 * Threads that end, and threads that wait for another in pthread_join,
 * seen by the deadlock check: a rank whose threads called MPI is blocked
 * only if each of them is, and a thread outside MPI is not, unless the
 * state page says why it cannot go on by itself. A thread that ended says
 * so in its slot (api.StatusEnded, from a thread-specific destructor), and
 * one that joins a thread that has called MPI says which
 * (api.StatusJoining): it goes on once that thread ends.
 */
#define _GNU_SOURCE
#include "record.h"

#include <dlfcn.h>
#include <pthread.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER; /* the tables below, the statuses of joins */
static pthread_t slot_thread[MPIVET_STATE_SLOTS];
static pthread_t join_target[MPIVET_STATE_SLOTS]; /* the thread each slot's thread joins, while it does */
static int joining[MPIVET_STATE_SLOTS];
static int slot_owned[MPIVET_STATE_SLOTS]; /* the slot is its thread's alone */
static pthread_key_t ending;
static pthread_once_t ending_once = PTHREAD_ONCE_INIT;

static void set_status(uint64_t *s, uint64_t status)
{
	s[MPIVET_STATE_SEQ]++;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	s[MPIVET_STATE_STATUS] = status;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	s[MPIVET_STATE_SEQ]++;
}

/* ended runs as a thread that took slot arg-1 ends. */
static void ended(void *arg)
{
	int i = (int)(intptr_t)arg - 1;
	__atomic_store_n(&slot_owned[i], 0, __ATOMIC_RELEASE);
	set_status(&mpivet_state[i * MPIVET_STATE_WORDS], MPIVET_STATUS_ENDED);
}

static void make_key(void) { pthread_key_create(&ending, ended); }

/* mpivet_thread_slotted notes that the calling thread took slot i (its own
 * unless i is the last, which later threads share). */
void mpivet_thread_slotted(int i)
{
	if (i <= 0 || i >= MPIVET_STATE_SLOTS - 1)
		return; /* the first thread ends with the process */
	pthread_mutex_lock(&mu);
	slot_thread[i] = pthread_self();
	__atomic_store_n(&slot_owned[i], 1, __ATOMIC_RELEASE);
	/* a thread that joined this one before it called MPI waits for it */
	for (int k = 0; k < MPIVET_STATE_SLOTS; k++)
		if (joining[k] && pthread_equal(join_target[k], slot_thread[i]))
			set_status(&mpivet_state[k * MPIVET_STATE_WORDS], MPIVET_STATUS_JOINING | (uint64_t)i << 8);
	pthread_mutex_unlock(&mu);
	pthread_once(&ending_once, make_key);
	pthread_setspecific(ending, (void *)(intptr_t)(i + 1));
}

/* slot_of is the slot of thread t, if it has one of its own, or -1. */
static int slot_of(pthread_t t)
{
	for (int i = 1; i < MPIVET_STATE_SLOTS - 1; i++)
		if (__atomic_load_n(&slot_owned[i], __ATOMIC_ACQUIRE) && pthread_equal(slot_thread[i], t))
			return i;
	return -1;
}

int pthread_join(pthread_t t, void **ret)
{
	static int (*real)(pthread_t, void **);
	if (!real)
		real = (int (*)(pthread_t, void **))dlsym(RTLD_NEXT, "pthread_join");
	uint64_t *s = mpivet_slot;
	int me = s ? (int)((s - mpivet_state) / MPIVET_STATE_WORDS) : -1;
	if (me < 0 || me >= MPIVET_STATE_SLOTS - 1 || s[MPIVET_STATE_STATUS] != 2)
		return real(t, ret);
	/* A thread that has not called MPI yet gets its slot number here
	 * when it does; until then the join says nothing (0xff). */
	pthread_mutex_lock(&mu);
	int j = slot_of(t);
	join_target[me] = t, joining[me] = 1;
	set_status(s, MPIVET_STATUS_JOINING | (uint64_t)(j >= 0 ? j : 0xff) << 8);
	pthread_mutex_unlock(&mu);
	int rc = real(t, ret);
	pthread_mutex_lock(&mu);
	joining[me] = 0;
	set_status(s, 2);
	pthread_mutex_unlock(&mu);
	return rc;
}
