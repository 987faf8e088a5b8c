/*
 * Hold-backs (several threads, MPI_THREAD_MULTIPLE): in a guided replay
 * that forces thread 1's receive A to source S, thread 2's receive B may
 * still take S's message first. A hold line of the decision file (api
 * WildHold: rank, position, event, kind) names B by its thread's position,
 * the thread's count of wildcard events when it posts B (thread number in
 * the high bits, as event numbers), and A by its event: the receives that
 * thread posts at that position, from S or from any source, wait in their
 * wrapper's pre hook, before the call reaches the MPI, until A has
 * matched. The wait sleeps with a backoff and holds no lock.
 *
 * Two threads' receives from one named source compete too: which takes
 * the first message is the scheduler's. A hold line whose event is a
 * position of the other thread that no decision forces waits for the
 * receive with a named source that thread posts there (ck_release_named).
 * A hold never
 * released (A never matches) leaves the replay stalled with the hold
 * logged (META_HELD) and A forced and unmatched: the explorer counts the
 * replay as infeasible (explore.Unmatched).
 */
#define _GNU_SOURCE
#include "protocol.h"

#include <stdlib.h>
#include <time.h>

struct hold {
	uint64_t pos, release;
	int released;
};
static struct hold *holds;
static size_t nholds, capholds;

/* ck_add_hold keeps a hold line of the decision file. */
void ck_add_hold(uint64_t pos, uint64_t release)
{
	if (nholds == capholds) {
		capholds = capholds ? capholds * 2 : 8;
		holds = realloc(holds, capholds * sizeof *holds);
	}
	holds[nholds++] = (struct hold){pos, release, 0};
}

/* ck_release releases the receives held until event e matched. */
void ck_release(uint64_t e)
{
	for (size_t i = 0; i < nholds; i++)
		if (holds[i].release == e)
			holds[i].released = 1;
}

/* ck_release_named releases the receives held until a receive with a
 * named source, posted by its thread at position pos, matched: the
 * holds whose releasing position is no event a decision forces (those
 * wait for that event's match). */
void ck_release_named(uint64_t pos)
{
	for (size_t i = 0; i < nholds; i++)
		if (holds[i].release == pos && !holds[i].released && ck_forced(pos, EV_RECV) == MPI_ANY_SOURCE)
			holds[i].released = 1;
}

static void log_held(const struct hold *h)
{
	uint64_t w[] = {h->pos, h->release, (uint64_t)h->released};
	ck_log_event(MPIVET_META_HELD, w, sizeof w / 8);
}

/* ck_hold makes the receive this thread is posting from src wait while a
 * hold of its position is not released. Called with ck_mu held, which the
 * wait gives up between its looks, so that the releasing event's thread
 * can match it. */
void ck_hold(int src)
{
	if (!nholds || !ck_threads)
		return;
	for (size_t i = 0; i < nholds; i++) {
		struct hold *h = &holds[i];
		if (h->pos != events || h->released)
			continue;
		int s = ck_forced(h->release, EV_RECV);
		if (src != MPI_ANY_SOURCE && s != MPI_ANY_SOURCE && src != s)
			continue; /* cannot take the message the event is forced to */
		log_held(h);
		long ns = 100000; /* 0.1 ms, doubling to 20 ms: the wait may be long (the releasing receive's message may come late) */
		while (!h->released) {
			ck_unlock();
			struct timespec t = {0, ns};
			nanosleep(&t, NULL);
			ns = ns < 20000000 ? ns * 2 : ns;
			ck_relock();
		}
		log_held(h);
	}
}
