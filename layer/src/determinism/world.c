/*
 * determinism/: deterministic mode (mpivet run --deterministic), after
 * dMPI (seed 002). Same input, same matches and same completions, whatever
 * the network and the load do, without logs:
 *
 *   - every rank keeps a logical time dt_lt, +1 at every MPI call the layer
 *     sees, and on the completion of a receive dt_lt = max(dt_lt, stamp + 1)
 *     (a Lamport clock: the seed ticks by instruction counts instead);
 *   - every send is announced to its destination by a header (stamp = the
 *     sender's dt_lt, communicator id, tag) on one control communicator (a dup
 *     of MPI_COMM_WORLD), one tag: headers, Requests and Answers from one
 *     rank arrive in the order they were sent (non-overtaking). The
 *     receiver mirrors the MPI's matching of receives with known sources
 *     on the headers, so it knows which messages are still unreceived;
 *   - the world clock (§2.3): dt_lb[k], a bound under every later stamp of rank
 *     k, raised by k's headers and by its Answers. A wildcard receive or
 *     probe takes the unreceived message of smallest (stamp, source key)
 *     once every other member's dt_lb has reached that stamp (§2.5). A member
 *     that is behind is asked (a Request, carrying the time wanted and the
 *     asker's time); it Answers once its own time has passed it;
 *   - deterministic transmission points (§2.4): a receive posted at time p
 *     taking a message stamped s is seen complete at max(p, s) + K, a send
 *     at p + K. Test, Testany, Testsome, Testall, Iprobe (a message is
 *     seen at s + K), Waitany and Waitsome answer by these times: a Test before the point fails even if
 *     the message is there (the request is hidden from the MPI behind a
 *     receive that never completes); at the point the rank waits until it
 *     is. Early messages are left in the MPI's unexpected queue: the sender
 *     is never held back.
 *
 * The light deadlock checker (§2.6). Determinism adds waits: a rank waits
 * for a peer's time to pass a stamp. Two kinds of cycle are resolved
 * deterministically, by what the blocked rank knows: a rank blocked in a
 * receive (or a wildcard decision) whose possible sources are S answers a
 * Request with max(dt_lt, min over S of (its dt_lb, the asker's own time if the
 * asker is in S, its headers' stamps) + 1), a bound its later sends must
 * exceed since it sends nothing before taking one of those messages. So a
 * master polling workers that wait for it is answered at once. What
 * remains (a peer blocked in a collective or a send, cycles through ranks
 * that are themselves deciding) is found by a timeout: a deterministic
 * wait that made no progress for 100 ms (the seed's interval) gives up,
 * and the decision is taken on what has arrived: determinism is relaxed,
 * counted, and the report says so. Real deadlocks stay the deadlock
 * check's: every wait here is inside the call the program made (a
 * receive, a Wait), so the state page shows the true wait.
 *
 * Memory grows with the headers not yet received and the requests
 * pending, never with the run's length; per message one header of 32
 * bytes; per rank the world clock and the Requests asked (dt_np words each,
 * what the seed's clock vector requires).
 *
 * Files, from the bottom up, each calling only those below it: world.c
 * (this: the clock, the control channel, communicators, mirrored matching,
 * standing answers, what the world clock tells a decision, waits; with
 * internal.h, what they all share), requests.c (the requests it follows,
 * by handle), deferred.c (wildcard MPI_Irecv, held back from the MPI until
 * decided), decide.c (the decisions), hooks.c (what each call means to the
 * mode). Each but hooks.c has a header of its own.
 */
#define _GNU_SOURCE
#include "internal.h"
#include "../record/conf.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sched.h>

int mpivet_dt_on;
uint64_t dt_lt;
int dt_me, dt_np;
uint64_t *dt_lb, dt_k = 2, dt_seed;
MPI_Request dt_dummy = MPI_REQUEST_NULL;
struct hdr *dt_hhead, *dt_htail;
struct prc *dt_phead, *dt_ptail;
uint64_t dt_st_wild, dt_st_polls, dt_st_relaxed, dt_st_ctl, dt_st_uncovered;
int *dt_wsrc, dt_nwsrc, dt_capwsrc;

MPI_Comm dt_selfc = MPI_COMM_NULL;
struct dcomm *dt_comms;
static MPI_Comm ctl = MPI_COMM_NULL;
static uint64_t nextid = 1;
static uint64_t *asked, *want, *wantt;
/* Standing answers. A rank blocked in a wait that only a message from
 * rank m can end (its one wait source), with no message of m announced and
 * not yet received, sends nothing before m sends it a message: its later
 * stamps exceed that message's, so exceed m's time, however long m goes on
 * without sending to it. It says so in its Answer to m (standing, with the
 * number of m's headers it has had); m, if it has sent no header since,
 * takes its own time as that rank's bound until it sends to it, without
 * asking again (standing[k]). A master polling workers that wait for it
 * needs no Request and no context switch of theirs per poll. */
static char *standing;
static uint64_t *hsent, *hrecvd; /* headers sent to, received from each rank */
static int nstanding;
static int nwant;
static int ending; /* this rank has sent its ends: no more control messages */
static int fins;   /* peers that have called MPI_Finalize */
static int dummybuf;

enum { HDR = 1, REQ, ANS, FIN, PRB };

/* The wait in progress, for the deadlock checker's probes. */
static int waiting;           /* inside dt_wait */
static uint64_t wait_seq;     /* this rank's waits, numbered */
static int cycle;             /* a probe of the current wait came back */
static uint64_t *forwarded;   /* per origin: the last probe passed on */

static void ctl_send(int k, uint64_t kind, uint64_t a, uint64_t b, uint64_t c);

/* probe sends the deadlock checker's probe (origin, seq) on, to the ranks
 * this wait depends on: those asked for a time they have not reached, and
 * the sources a blocked receive waits on (Chandy-Misra-Haas edge chasing). */
static void probe(int origin, uint64_t seq)
{
	for (int k = 0; k < dt_np; k++)
		if (k != dt_me && asked[k] > dt_lb[k])
			ctl_send(k, PRB, (uint64_t)origin, seq, 0);
	for (int i = 0; i < dt_nwsrc; i++)
		if (dt_wsrc[i] != dt_me && !(asked[dt_wsrc[i]] > dt_lb[dt_wsrc[i]]))
			ctl_send(dt_wsrc[i], PRB, (uint64_t)origin, seq, 0);
}

static void got_probe(int origin, uint64_t seq)
{
	if (origin == dt_me) {
		if (waiting && seq == wait_seq)
			cycle = 1;
		return;
	}
	if (!waiting || forwarded[origin] >= seq + 1)
		return; /* a rank not waiting will act: no deadlock through it */
	forwarded[origin] = seq + 1;
	probe(origin, seq);
}

uint64_t dt_key(int world)
{
	if (!dt_seed)
		return (uint64_t)world;
	uint64_t x = (uint64_t)world * 0x9E3779B97F4A7C15ULL ^ dt_seed;
	x ^= x >> 31, x *= 0xBF58476D1CE4E5B9ULL, x ^= x >> 29;
	return x;
}

static void ctl_send(int k, uint64_t kind, uint64_t a, uint64_t b, uint64_t c)
{
	if (ending)
		return;
	uint64_t m[4] = {kind, a, b, c};
	PMPI_Send(m, 4, MPI_UINT64_T, k, 0, ctl);
	dt_st_ctl += kind != HDR;
}

/* ---- Communicators ---- */

struct dcomm *dt_comm(MPI_Comm c)
{
	for (struct dcomm *d = dt_comms; d; d = d->next)
		if (d->c == c)
			return d;
	return NULL;
}

/* dt_comm_new gives c an id all its members agree on (collective over c):
 * the largest of the members' next ids, so two communicators sharing a
 * member never share an id. Intercommunicators are not followed, nor are
 * communicators with processes mpivet did not launch (which would not join
 * the collective). */
void dt_comm_new(MPI_Comm c)
{
	int inter = 0;
	if (c == MPI_COMM_NULL || PMPI_Comm_test_inter(c, &inter) != MPI_SUCCESS || inter || mpivet_comm_outside(c))
		return;
	uint64_t id = nextid;
	PMPI_Allreduce(MPI_IN_PLACE, &id, 1, MPI_UINT64_T, MPI_MAX, c);
	nextid = id + 1;
	struct dcomm *d = calloc(1, sizeof *d);
	d->c = c, d->id = id;
	PMPI_Comm_size(c, &d->size);
	PMPI_Comm_rank(c, &d->rank);
	d->world = malloc(d->size * sizeof(int));
	MPI_Group g, wg;
	PMPI_Comm_group(c, &g);
	PMPI_Comm_group(MPI_COMM_WORLD, &wg);
	int *r = malloc(d->size * sizeof(int));
	for (int i = 0; i < d->size; i++)
		r[i] = i;
	PMPI_Group_translate_ranks(g, d->size, r, wg, d->world);
	free(r);
	PMPI_Group_free(&g);
	PMPI_Group_free(&wg);
	d->next = dt_comms, dt_comms = d;
}

void dt_comm_free(MPI_Comm c)
{
	for (struct dcomm **p = &dt_comms; *p; p = &(*p)->next)
		if ((*p)->c == c) {
			struct dcomm *d = *p;
			*p = d->next;
			d->freed = 1;
			d->refs++, dt_comm_unref(d);
			return;
		}
}

/* dt_comm_unref: a deferred receive on d has ended. */
void dt_comm_unref(struct dcomm *d)
{
	if (--d->refs <= 0 && d->freed) {
		free(d->world);
		free(d);
	}
}

/* ---- Headers and the mirrored matching ---- */

static int tag_ok(int want_tag, int tag) { return want_tag == MPI_ANY_TAG || want_tag == tag; }

void dt_claim(struct prc *p, struct hdr *h)
{
	p->h = h;
	h->claim = p;
}

/* dt_header announces a message of this rank to dest (a rank of c). */
void dt_header(int dest, int tag, MPI_Comm c)
{
	struct dcomm *d;
	if (dest == MPI_PROC_NULL || !(d = dt_comm(c)) || dest < 0 || dest >= d->size)
		return;
	int w = d->world[dest];
	if (w != dt_me && standing[w]) { /* its later stamps exceed this one's */
		standing[w] = 0, nstanding--;
		if (dt_lt + 1 > dt_lb[w])
			dt_lb[w] = dt_lt + 1;
	}
	hsent[w]++;
	ctl_send(w, HDR, dt_lt, d->id, (uint64_t)(int64_t)tag);
}

/* stand raises the bounds of the ranks standing on this one to its time. */
static void stand(void)
{
	for (int k = 0; nstanding && k < dt_np; k++)
		if (standing[k] && dt_lb[k] < dt_lt)
			dt_lb[k] = dt_lt;
}

static void got_header(int src, const uint64_t *m)
{
	struct hdr *h = calloc(1, sizeof *h);
	h->stamp = m[1], h->cid = m[2], h->tag = (int)(int64_t)m[3], h->src = src;
	hrecvd[src]++;
	h->prev = dt_htail;
	if (dt_htail)
		dt_htail->next = h;
	else
		dt_hhead = h;
	dt_htail = h;
	if (h->stamp > dt_lb[src])
		dt_lb[src] = h->stamp;
	for (struct prc *p = dt_phead; p; p = p->next)
		if (!p->h && p->cid == h->cid && p->src == src && tag_ok(p->tag, h->tag)) {
			dt_claim(p, h);
			break;
		}
}

/* dt_post_recv mirrors a receive from world rank src posted on d. */
struct prc *dt_post_recv(struct dcomm *d, int src, int tag)
{
	struct prc *p = calloc(1, sizeof *p);
	p->cid = d->id, p->src = src, p->tag = tag, p->post = dt_lt;
	p->prev = dt_ptail;
	if (dt_ptail)
		dt_ptail->next = p;
	else
		dt_phead = p;
	dt_ptail = p;
	for (struct hdr *h = dt_hhead; h; h = h->next)
		if (!h->claim && h->cid == p->cid && h->src == src && tag_ok(tag, h->tag)) {
			dt_claim(p, h);
			break;
		}
	return p;
}

static void unlink_prc(struct prc *p);

static int claimed(void *arg) { return ((struct prc *)arg)->h != NULL; }

/* dt_complete: the receive p took its message. Its header was sent before
 * the message, so it is on its way if not here. */
void dt_complete(struct prc *p)
{
	if (!p->h)
		dt_wait(claimed, p, 0);
	struct hdr *h = p->h;
	if (h->stamp + 1 > dt_lt)
		dt_lt = h->stamp + 1;
	if (h->prev)
		h->prev->next = h->next;
	else
		dt_hhead = h->next;
	if (h->next)
		h->next->prev = h->prev;
	else
		dt_htail = h->prev;
	unlink_prc(p);
	free(h);
	free(p);
}

static void unlink_prc(struct prc *p)
{
	if (p->prev)
		p->prev->next = p->next;
	else
		dt_phead = p->next;
	if (p->next)
		p->next->prev = p->prev;
	else
		dt_ptail = p->prev;
}

/* dt_unpost: the mirrored receive p was cancelled: its header, if any, is
 * unreceived again. */
void dt_unpost(struct prc *p)
{
	if (p->h)
		p->h->claim = NULL;
	unlink_prc(p);
	free(p);
}

/* dt_complete_wild: a wildcard receive the MPI matched (a deferred one
 * whose decision had to be relaxed, deferred.c) took the first message of src
 * (a rank of d) with that tag that no receive took: its header goes. */
void dt_complete_wild(struct dcomm *d, int src, int tag)
{
	if (src < 0 || src >= d->size)
		return;
	struct prc *p = dt_post_recv(d, d->world[src], tag);
	dt_complete(p);
}

/* ---- Requests and Answers ---- */

/* bound is what this rank can promise requester r (whose own later stamps
 * exceed tr): a bound under all its later stamps (world.c's comment). */
static uint64_t bound(int r, uint64_t tr)
{
	uint64_t b = dt_lt;
	if (!dt_nwsrc)
		return b;
	uint64_t v = UINT64_MAX;
	for (int i = 0; i < dt_nwsrc; i++) {
		int k = dt_wsrc[i];
		uint64_t vk = k == dt_me ? UINT64_MAX : k == r ? (tr > dt_lb[k] ? tr : dt_lb[k]) : dt_lb[k];
		for (struct hdr *h = dt_hhead; h; h = h->next)
			if (h->src == k && h->stamp < vk)
				vk = h->stamp;
		if (vk < v)
			v = vk;
	}
	if (v != UINT64_MAX && v + 1 > b)
		b = v + 1;
	return b;
}

/* answer answers r's Request if this rank's bound has reached it; if not,
 * and the rank is blocked on sources, it asks them in turn (the bound grows
 * with theirs: null messages on demand, as in conservative simulation). */
static void answer(int r)
{
	uint64_t b = bound(r, wantt[r]);
	if (b >= want[r]) {
		int st = dt_nwsrc == 1 && dt_wsrc[0] == r;
		for (struct hdr *h = dt_hhead; st && h; h = h->next)
			st = h->src != r;
		ctl_send(r, ANS, b, (uint64_t)st, hrecvd[r]);
		want[r] = 0;
		nwant--;
		return;
	}
	for (int i = 0; i < dt_nwsrc; i++)
		if (dt_wsrc[i] != r)
			dt_need(dt_wsrc[i], want[r] - 1);
}

void dt_answer_all(void)
{
	for (int r = 0; nwant && r < dt_np; r++)
		if (want[r])
			answer(r);
}

/* dt_need asks rank k for its time to pass t, unless known or asked. */
void dt_need(int k, uint64_t t)
{
	if (k != dt_me && standing[k] && dt_lb[k] < dt_lt)
		dt_lb[k] = dt_lt;
	if (k == dt_me || dt_lb[k] >= t || asked[k] >= t)
		return;
	asked[k] = t;
	ctl_send(k, REQ, t, dt_lt, 0);
}

void (*dt_progress)(void);

/* dt_drain reads the control channel: headers, Requests (answered),
 * Answers; first it runs dt_progress, the work a file above has to do at
 * every entry and in every wait (deferred.c sets it). */
void dt_drain(void)
{
	if (dt_progress)
		dt_progress();
	for (;;) {
		int flag = 0;
		MPI_Status st;
		PMPI_Iprobe(MPI_ANY_SOURCE, 0, ctl, &flag, &st);
		if (!flag)
			break;
		uint64_t m[4];
		PMPI_Recv(m, 4, MPI_UINT64_T, st.MPI_SOURCE, 0, ctl, MPI_STATUS_IGNORE);
		int k = st.MPI_SOURCE;
		switch (m[0]) {
		case HDR:
			got_header(k, m);
			break;
		case REQ:
			if (!want[k])
				nwant++;
			if (m[1] > want[k])
				want[k] = m[1];
			wantt[k] = m[2];
			answer(k);
			break;
		case PRB:
			got_probe((int)m[1], m[2]);
			break;
		case ANS:
			if (m[2] && m[3] == hsent[k] && !standing[k])
				standing[k] = 1, nstanding++;
			/* fall through */
		case FIN:
			fins += m[0] == FIN;
			if (m[1] > dt_lb[k])
				dt_lb[k] = m[1];
			break;
		}
	}
	stand();
}

/* ---- What the world clock tells a decision ---- */

/* While a decision is taken relaxed (a deterministic wait gave up,
 * decide.c), every rank counts as having passed every time: the decision
 * is taken on the messages that have arrived. */
int dt_relaxing;

/* dt_earliest is the unclaimed header on d from world (or any source) with
 * a tag the receive takes, stamped upto at most, of smallest (stamp, key). */
struct hdr *dt_earliest(struct dcomm *d, int world, int tag, uint64_t upto)
{
	struct hdr *best = NULL;
	for (struct hdr *h = dt_hhead; h; h = h->next) {
		if (h->claim || h->cid != d->id || h->stamp > upto)
			continue;
		if ((world != MPI_ANY_SOURCE && h->src != world) || (tag != MPI_ANY_TAG && tag != h->tag))
			continue;
		if (!best || h->stamp < best->stamp || (h->stamp == best->stamp && dt_key(h->src) < dt_key(best->src)))
			best = h;
	}
	return best;
}

/* dt_settled: every possible source other than this rank has passed t (no
 * later message of theirs can be stamped t or less); asks those behind. */
int dt_settled(struct dcomm *d, int world, uint64_t t)
{
	int ok = 1;
	for (int i = 0; i < d->size; i++) {
		int k = d->world[i];
		if (k == dt_me || (world != MPI_ANY_SOURCE && k != world))
			continue;
		if (dt_lb[k] < t) {
			dt_need(k, t);
			ok = 0;
		}
	}
	return ok || dt_relaxing;
}

/* ---- Waits ---- */

void dt_wait_add(int world)
{
	if (dt_nwsrc == dt_capwsrc) {
		dt_capwsrc = dt_capwsrc ? dt_capwsrc * 2 : 64;
		dt_wsrc = realloc(dt_wsrc, dt_capwsrc * sizeof(int));
	}
	dt_wsrc[dt_nwsrc++] = world;
}

void dt_wait_on(struct dcomm *d, int world)
{
	if (world != MPI_ANY_SOURCE)
		dt_wait_add(world);
	else
		for (int i = 0; i < d->size; i++)
			dt_wait_add(d->world[i]);
}

void dt_wait_done(void) { dt_nwsrc = 0; }

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The light deadlock checker (seed 002, §2.6). A deterministic wait that
 * has seen no progress for the seed's interval sends a probe along what it
 * waits for; the probe travels through ranks that are themselves waiting,
 * and if it comes back, the waits form a cycle: the wait gives up, and the
 * caller decides on what has arrived (relaxed). A wait on a rank that never
 * takes part (blocked in a collective or a send, which the mode does not
 * turn into a loop) gives up after GIVEUP_NS without progress: slower, so
 * that a rank only descheduled or computing is usually waited for, but
 * under the second mpivet's deadlock check takes to decide (1 s without a
 * completed call, checked again 0.4 s later), which would otherwise see
 * the ranks the deciding one leaves waiting. */
#define PROBE_NS 100000000ULL
#define GIVEUP_NS 1000000000ULL

/* deciding sets the state page's status of the call in progress: a
 * deterministic decision's wait is not a block (the deadlock check reads
 * it, checks/internal/waitstate); 1 is back inside the call. */
static void deciding(uint64_t status)
{
	uint64_t *s = mpivet_state_open();
	s[MPIVET_STATE_STATUS] = status;
	mpivet_state_close(s);
}

int dt_wait(dt_ready ready, void *arg, int relaxable)
{
	uint64_t since = now_ns(), spins = 0, probed = 0;
	uint64_t seen = 0; /* a digest of the world clock: progress */
	int outer = waiting;
	waiting = 1;
	if (relaxable)
		deciding(MPIVET_STATUS_DECIDING);
	wait_seq++;
	cycle = 0;
	for (;;) {
		dt_drain();
		if (ready(arg)) {
			waiting = outer;
			if (relaxable)
				deciding(1);
			return 1;
		}
		dt_answer_all();
		if ((++spins & 63) == 0) {
			uint64_t d = 0, t = now_ns();
			for (int k = 0; k < dt_np; k++)
				d += dt_lb[k];
			if (d != seen) {
				seen = d, since = t, probed = 0;
				wait_seq++;
				cycle = 0;
			}
			if (relaxable && (cycle || t - since > GIVEUP_NS)) {
				dt_st_relaxed++;
				waiting = outer;
				deciding(1);
				return 0;
			}
			if (t - since > PROBE_NS && t - probed > PROBE_NS) {
				probed = t;
				probe(dt_me, wait_seq);
			}
		}
		sched_yield(); /* as the MPIs do when ranks outnumber cores */
	}
}

/* ---- Start and end ---- */

void dt_start(void)
{
	const char *s = mpivet_conf(MPIVET_CONF_DETERMINISTIC);
	if (!s)
		return;
	dt_seed = strtoull(s, NULL, 10);
	dt_k = 2 + dt_seed % 3;
	PMPI_Comm_rank(MPI_COMM_WORLD, &dt_me);
	PMPI_Comm_size(MPI_COMM_WORLD, &dt_np);
	dt_lb = calloc(dt_np, 8);
	asked = calloc(dt_np, 8);
	want = calloc(dt_np, 8);
	wantt = calloc(dt_np, 8);
	forwarded = calloc(dt_np, 8);
	standing = calloc(dt_np, 1);
	hsent = calloc(dt_np, 8);
	hrecvd = calloc(dt_np, 8);
	PMPI_Comm_dup(MPI_COMM_WORLD, &ctl);
	PMPI_Comm_dup(MPI_COMM_SELF, &dt_selfc);
	PMPI_Irecv(&dummybuf, 1, MPI_INT, 0, 0, dt_selfc, &dt_dummy);
	dt_comm_new(MPI_COMM_WORLD);
	dt_comm_new(MPI_COMM_SELF);
	mpivet_dt_on = 1;
}

static int all_ended(void *arg)
{
	(void)arg;
	return fins >= dt_np - 1;
}

/* dt_finish, at MPI_Finalize: every peer learns that this rank sends no
 * more (its bound is infinite); the rank then takes the control messages
 * still coming until every peer has said the same (MPI_Finalize waits for
 * them anyway), so none is left unreceived (UCX warns of those), for at
 * most 5 s (a peer that died). The mode's statistics are logged. */
void dt_finish(void)
{
	dt_drain();
	for (int k = 0; k < dt_np; k++)
		if (k != dt_me)
			ctl_send(k, FIN, UINT64_MAX, 0, 0);
	ending = 1;
	uint64_t until = now_ns() + 5000000000ULL;
	while (!all_ended(NULL) && now_ns() < until) {
		dt_drain();
		sched_yield();
	}
	uint64_t w[8] = {dt_seed, dt_k, dt_st_wild, dt_st_polls, dt_st_relaxed, dt_st_ctl, dt_st_uncovered, dt_lt};
	mpivet_meta(MPIVET_META_DETERMINISM, w, 8);
	PMPI_Cancel(&dt_dummy);
	PMPI_Wait(&dt_dummy, MPI_STATUS_IGNORE);
	mpivet_dt_on = 0;
}
