/*
 * Folding repeated records (fold.h): a loop of deterministic calls writes
 * the same records in every iteration, but for the offsets of exit and
 * some meta records, which point at the call's entry record. The log keeps
 * one iteration, then a repeat record that counts the others.
 *
 * Detecting a repetition. Each record written gets a hash of what the
 * checks compare (its header and words, all but the entry offset an exit,
 * MetaColl, MetaRMA, MetaFile or MetaView starts with, which must be the
 * latest entry's: these always are, with one thread calling MPI). A record
 * of any other kind (wildcard events, their matches and completions, buffer
 * accesses, errors, signals, ...) gets a hash of its own, so no repetition
 * holds one: nondeterministic events are never folded. The distance d
 * from a record to the latest with its hash (a table by hash) is a period
 * to follow (up to FOLD_K records, FOLD_TRACK at once), with how many
 * records in a row equal the one d before. When the last d records equal
 * the d before them (compared word by word), a repeat record follows them
 * (count 0), and those d records are the template.
 *
 * Folding. Then each record committed is compared with the template's next
 * record (a repeat record inside the template is expanded: nested loops):
 * if equal it is not written (its room is zeroed and taken back: a header
 * not stored yet is no record to a reader), its virtual offset counts on
 * (mpivet_vdelta), and the repeat record's count word says how many whole
 * repetitions and records of the next one were folded (one store). The
 * first record that differs closes the repeat: the records of the
 * unfinished repetition are written out before it (copies of the
 * template's, their entry offsets set), and it starts anew.
 *
 * A reader that reads the log while the rank runs sees the count word as
 * it was: whole repetitions, and the records of one more as long as
 * nothing follows the repeat record (trace reads the count word again when
 * something does: it no longer changes).
 *
 * Nothing is folded under MPI_THREAD_MULTIPLE (mpivet_mt), nor with
 * layer.conf records=full.
 */
#include "fold.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define FOLD_K 512     /* the longest period, in records written */
#define FOLD_RING 1024 /* the latest records written: 2 FOLD_K */
#define FOLD_TRACK 8   /* periods followed at once */
#define FOLD_TABLE 4096 /* records by hash */
#define REP_SIZE (8 + 8 * MPIVET_REPEAT_WORDS)

int mpivet_fold_on;
uint64_t mpivet_vdelta;

static uint64_t ring_hash[FOLD_RING], ring_off[FOLD_RING], nring;
static int busy; /* a commit is under way */

/* The open repeat: its record's log offset (0: none), its template's
 * records expanded (it), the records of one repetition, whole
 * repetitions and records of the next one folded, their virtual bytes,
 * and the latest entry's virtual offset before that one. */
static uint64_t rep, rep_records, count, part, part_bytes, part_entry;
static struct mpivet_fold_it it;

/* The latest entry record: its virtual offset and where its words are. */
static uint64_t last_entry = MPIVET_NOREC;
static const uint64_t *last_entry_rec;

static unsigned kind_of(uint64_t h) { return (unsigned)(h >> 48 & 0xff); }
static unsigned id_of(uint64_t h) { return (unsigned)(h >> 32 & 0xffff); }
static uint64_t size_of(uint64_t h) { return h & 0xffffffff; }

/* has_ref: the record's first word is its call's entry offset. */
static int has_ref(unsigned kind, unsigned id)
{
	return kind == MPIVET_KIND_EXIT ||
	       (kind == MPIVET_KIND_META && (id == MPIVET_META_COLL || id == MPIVET_META_RMA || id == MPIVET_META_FILE || id == MPIVET_META_VIEW));
}

/* foldable: the record may be part of a repetition. */
static int foldable(unsigned kind, unsigned id)
{
	return kind == MPIVET_KIND_ENTRY || kind == MPIVET_KIND_BRIEF || kind == MPIVET_KIND_REPEAT || has_ref(kind, id) ||
	       (kind == MPIVET_KIND_META && id == MPIVET_META_COMM);
}

/* same reports whether record r (header h, its own not stored yet) equals
 * record t but for an entry offset. */
static int same(const uint64_t *r, uint64_t h, const uint64_t *t)
{
	if (t[0] != h)
		return 0;
	uint64_t n = size_of(h) / 8 - 1;
	for (uint64_t i = has_ref(kind_of(h), id_of(h)) ? 1 : 0; i < n; i++)
		if (r[1 + i] != t[1 + i])
			return 0;
	return 1;
}

static uint64_t hash(const uint64_t *r, uint64_t h)
{
	uint64_t x = h * 0x9e3779b97f4a7c15ULL, n = size_of(h) / 8 - 1;
	for (uint64_t i = has_ref(kind_of(h), id_of(h)) ? 1 : 0; i < n; i++) {
		x = (x ^ r[1 + i]) * 0xff51afd7ed558ccdULL;
		x ^= x >> 32;
	}
	return x;
}

void mpivet_fold_it_init(struct mpivet_fold_it *i, const char *base, uint64_t start, uint64_t end, uint64_t v)
{
	i->base = base, i->v = v, i->depth = 1;
	i->f[0].start = start, i->f[0].end = end, i->f[0].pos = start, i->f[0].reps = 1;
}

const uint64_t *mpivet_fold_it_next(struct mpivet_fold_it *i, uint64_t *voff)
{
	while (i->depth > 0) {
		__typeof__(i->f[0]) *f = &i->f[i->depth - 1];
		if (f->pos + 8 > f->end) {
			if (--f->reps > 0)
				f->pos = f->start;
			else
				i->depth--;
			continue;
		}
		const uint64_t *r = (const uint64_t *)(i->base + f->pos);
		uint64_t h = __atomic_load_n(r, __ATOMIC_ACQUIRE), size = size_of(h), at = f->pos;
		if (h == 0 || size < 8 || size % 8 || at + size > f->end) {
			i->depth = 0;
			break;
		}
		f->pos += size;
		if (kind_of(h) != MPIVET_KIND_REPEAT) {
			*voff = i->v;
			i->v += size;
			return r;
		}
		uint64_t c = size == REP_SIZE ? r[1 + MPIVET_REPEAT_COUNT] >> MPIVET_REPEAT_SHIFT : 0, len = r[1 + MPIVET_REPEAT_LEN];
		if (c > 0 && len > 0 && len <= at - f->start && i->depth < MPIVET_FOLD_DEPTH) {
			__typeof__(i->f[0]) *g = &i->f[i->depth++];
			g->start = at - len, g->end = at, g->pos = at - len, g->reps = c;
		}
	}
	return NULL;
}

/* push notes the hash h of the record written at off, and the periods d
 * that the latest 2d records repeat, shortest first, in cand (ncand of
 * them): each is a candidate while the repetition is younger than
 * another period. The periods followed are those from a record to the
 * latest record with its hash (found in a table by hash), at most
 * FOLD_TRACK at once, each with how many records in a row repeat the one
 * d before: a few compares a record, whatever the period. */
static uint64_t cand[FOLD_TRACK], ncand;
static uint64_t track_d[FOLD_TRACK], track_run[FOLD_TRACK], ntrack;
static uint64_t table_hash[FOLD_TABLE], table_n[FOLD_TABLE]; /* a hash, the record after its latest */

static void track(uint64_t d)
{
	uint64_t k = ntrack;
	for (uint64_t i = 0; i < ntrack; i++)
		if (track_d[i] == d)
			return;
	if (ntrack < FOLD_TRACK) {
		ntrack++;
	} else { /* replace the shortest run */
		k = 0;
		for (uint64_t i = 1; i < ntrack; i++)
			if (track_run[i] < track_run[k])
				k = i;
	}
	track_d[k] = d, track_run[k] = 1;
}

static void push(uint64_t h, uint64_t off)
{
	uint64_t n = nring++, slot = (h ^ h >> 29) & (FOLD_TABLE - 1);
	ring_hash[n % FOLD_RING] = h, ring_off[n % FOLD_RING] = off;
	ncand = 0;
	for (uint64_t i = 0; i < ntrack; i++) {
		uint64_t d = track_d[i];
		if (ring_hash[(n - d) % FOLD_RING] != h) {
			ntrack--, track_d[i] = track_d[ntrack], track_run[i] = track_run[ntrack], i--;
			continue;
		}
		if (++track_run[i] >= d && track_run[i] < 2 * d) {
			uint64_t j = ncand++;
			for (; j > 0 && cand[j - 1] > d; j--)
				cand[j] = cand[j - 1];
			cand[j] = d;
		}
	}
	if (table_n[slot] && table_hash[slot] == h && n - (table_n[slot] - 1) <= FOLD_K)
		track(n - (table_n[slot] - 1));
	table_hash[slot] = h, table_n[slot] = n + 1;
}

static uint64_t *rec_at(uint64_t off) { return (uint64_t *)(mpivet_base + off); }

/* nesting returns how deep the repeats in the records [start, end) nest
 * (0: none), or -1 when one's repetition begins before start. */
static int nesting(uint64_t start, uint64_t end)
{
	int deepest = 0;
	for (uint64_t o = start; o < end;) {
		const uint64_t *r = rec_at(o);
		uint64_t size = size_of(r[0]);
		if (kind_of(r[0]) == MPIVET_KIND_REPEAT) {
			uint64_t len = r[1 + MPIVET_REPEAT_LEN];
			int d = len <= o - start ? nesting(o - len, o) : -1;
			if (d < 0)
				return -1;
			if (d + 1 > deepest)
				deepest = d + 1;
		}
		o += size;
	}
	return deepest;
}

/* open_repeat makes the latest d records, equal to the d before them, a
 * repeat's template, and writes the repeat record after them. */
static int open_repeat(uint64_t d)
{
	uint64_t n = nring, start = ring_off[(n - d) % FOLD_RING], end = mpivet_pos;
	if (2 * d > n)
		return 0;
	uint64_t bytes = 0;
	for (uint64_t i = 0; i < d; i++) {
		const uint64_t *a = rec_at(ring_off[(n - 2 * d + i) % FOLD_RING]), *b = rec_at(ring_off[(n - d + i) % FOLD_RING]);
		if (!same(b, b[0], a))
			return 0;
		bytes += size_of(b[0]);
	}
	if (bytes != end - start) /* a record between them that no commit saw (a crash handler's) */
		return 0;
	int depth = nesting(start, end);
	if (depth < 0 || depth >= MPIVET_FOLD_DEPTH - 1)
		return 0;
	uint64_t virt = 0, records = 0, calls = 0;
	for (uint64_t o = start; o < end; o += size_of(rec_at(o)[0])) {
		const uint64_t *r = rec_at(o);
		unsigned k = kind_of(r[0]);
		if (k == MPIVET_KIND_REPEAT) {
			uint64_t c = r[1 + MPIVET_REPEAT_COUNT] >> MPIVET_REPEAT_SHIFT;
			virt += c * r[1 + MPIVET_REPEAT_VIRTUAL], records += c * r[1 + MPIVET_REPEAT_RECORDS], calls += c * r[1 + MPIVET_REPEAT_CALLS];
		} else {
			virt += size_of(r[0]), records++, calls += k == MPIVET_KIND_ENTRY || k == MPIVET_KIND_BRIEF;
		}
	}
	if (!calls || records >= 1ULL << MPIVET_REPEAT_SHIFT || (end + REP_SIZE > mpivet_ready && !mpivet_grow(end + REP_SIZE)))
		return 0;
	uint64_t *w = rec_at(end);
	w[1 + MPIVET_REPEAT_LEN] = end - start, w[1 + MPIVET_REPEAT_VIRTUAL] = virt, w[1 + MPIVET_REPEAT_RECORDS] = records;
	w[1 + MPIVET_REPEAT_CALLS] = calls, w[1 + MPIVET_REPEAT_COUNT] = 0;
	__atomic_store_n(w, mpivet_header(MPIVET_REPEAT_WORDS, 0, MPIVET_KIND_REPEAT), __ATOMIC_RELEASE);
	mpivet_pos = end + REP_SIZE;
	mpivet_vdelta -= REP_SIZE; /* a repeat record has no virtual offset */
	rep = end, rep_records = records, count = part = part_bytes = 0, part_entry = last_entry;
	mpivet_fold_it_init(&it, mpivet_base, start, end, 0);
	return 1;
}

static void set_count(void)
{
	__atomic_store_n(&rec_at(rep)[1 + MPIVET_REPEAT_COUNT], count << MPIVET_REPEAT_SHIFT | part, __ATOMIC_RELEASE);
}

/* fold folds record r (header h) at phys into the open repeat if it is the
 * template's next record. */
static int fold(uint64_t phys, uint64_t *r, uint64_t h)
{
	uint64_t v;
	const uint64_t *t = mpivet_fold_it_next(&it, &v);
	if (!t || !same(r, h, t))
		return 0;
	uint64_t size = size_of(h);
	if (kind_of(h) == MPIVET_KIND_ENTRY)
		last_entry = phys + mpivet_vdelta, last_entry_rec = t;
	memset(r, 0, size);
	mpivet_pos = phys;
	mpivet_vdelta += size;
	part_bytes += size;
	if (++part == rep_records) {
		count++, part = part_bytes = 0, part_entry = last_entry;
		mpivet_fold_it_init(&it, mpivet_base, rep - rec_at(rep)[1 + MPIVET_REPEAT_LEN], rep, 0);
	}
	set_count();
	return 1;
}

static void commit_record(uint64_t phys, uint64_t nwords, unsigned call, unsigned kind);

/* reserve takes size bytes at the end of the log (NULL: it is full, and
 * marked so). */
static uint64_t *reserve(uint64_t size, uint64_t *phys)
{
	uint64_t o = mpivet_pos;
	if (o + size > mpivet_ready && !mpivet_grow(o + size)) {
		mpivet_overflow(o);
		return NULL;
	}
	mpivet_pos = o + size;
	*phys = o;
	return rec_at(o);
}

/* refold commits again, one by one, the n records of the repetition that
 * ended unfinished, from the template [start, end), at the end of the log:
 * written, or folded into a repeat of their own (an inner loop's). */
static int refold(uint64_t start, uint64_t end, uint64_t n)
{
	struct mpivet_fold_it i;
	mpivet_fold_it_init(&i, mpivet_base, start, end, 0);
	uint64_t v, at;
	for (uint64_t k = 0; k < n; k++) {
		const uint64_t *t = mpivet_fold_it_next(&i, &v);
		uint64_t h = t[0], *w = reserve(size_of(h), &at);
		if (!w)
			return 0;
		memcpy(w + 1, t + 1, size_of(h) - 8);
		if (has_ref(kind_of(h), id_of(h)))
			w[1] = last_entry;
		commit_record(at, size_of(h) / 8 - 1, id_of(h), kind_of(h));
	}
	return 1;
}

/* close_repeat closes the open repeat before the record of size bytes at
 * phys, not committed yet (none: size 0): the records of the unfinished
 * repetition are committed again before it (refold), which moves it. It
 * returns where the record is then (MPIVET_NOREC: the log is full, and it
 * is lost). */
static uint64_t close_repeat(uint64_t phys, uint64_t size)
{
	uint64_t local[64], *held = local; /* the record, while the others are committed (this may nest) */
	uint64_t n = part, f = part_bytes, end = rep, start = rep - rec_at(rep)[1 + MPIVET_REPEAT_LEN];
	uint64_t final[1 + MPIVET_REPEAT_WORDS];
	memcpy(final, rec_at(rep), sizeof final);
	final[1 + MPIVET_REPEAT_COUNT] = count << MPIVET_REPEAT_SHIFT;
	push(hash(final, final[0]), rep);
	part = 0;
	set_count();
	rep = 0;
	if (n == 0)
		return phys;
	if (size > sizeof local && !(held = malloc(size))) {
		mpivet_overflow(phys);
		return MPIVET_NOREC;
	}
	memcpy(held, rec_at(phys), size);
	memset(rec_at(phys), 0, size);
	mpivet_pos = phys;
	mpivet_vdelta -= f;
	last_entry = part_entry;
	int ok = refold(start, end, n);
	uint64_t at = MPIVET_NOREC, *w = ok && size ? reserve(size, &at) : NULL;
	if (w)
		memcpy(w, held, size);
	if (held != local)
		free(held);
	if (!ok)
		return MPIVET_NOREC;
	return size ? at : mpivet_pos;
}

/* commit_record is mpivet_fold_commit. */
static void commit_record(uint64_t phys, uint64_t nwords, unsigned call, unsigned kind)
{
	uint64_t h = mpivet_header(nwords, call, kind), *r = rec_at(phys);
	int ok = foldable(kind, call) && (!has_ref(kind, call) || (nwords > 0 && r[1] == last_entry));
	if (rep) {
		if (ok && fold(phys, r, h))
			return;
		phys = close_repeat(phys, size_of(h));
		if (phys == MPIVET_NOREC)
			return;
		if (rep) { /* the repetition committed again opened one */
			commit_record(phys, nwords, call, kind);
			return;
		}
		r = rec_at(phys);
	}
	__atomic_store_n(r, h, __ATOMIC_RELEASE);
	if (kind == MPIVET_KIND_ENTRY)
		last_entry = phys + mpivet_vdelta, last_entry_rec = r;
	push(ok ? hash(r, h) : ~nring * 0xc2b2ae3d27d4eb4fULL, phys);
	for (uint64_t i = 0; i < ncand && !open_repeat(cand[i]); i++)
		;
}

void mpivet_fold_commit(uint64_t phys, uint64_t nwords, unsigned call, unsigned kind)
{
	busy = 1;
	commit_record(phys, nwords, call, kind);
	busy = 0;
}

void mpivet_fold_flush(void)
{
	while (!busy && rep)
		close_repeat(mpivet_pos, 0);
}

const uint64_t *mpivet_fold_entry(uint64_t voff)
{
	if (voff == last_entry && last_entry_rec)
		return last_entry_rec;
	return rec_at(voff - mpivet_vdelta);
}
