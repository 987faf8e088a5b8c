/*
 * Datatypes as byte maps: which bytes one element of a datatype covers
 * (the constructors are read by datatypes/walk.c), cached by handle, and
 * the questions the checker asks of them: does an operation's datatype
 * cover an address, what are the bytes it covers on a page.
 */
#define _GNU_SOURCE
#include "checker.h"

#include <stdlib.h>

struct blocks {
	int64_t n, cap, *off, *len;
	int bad;
};

#define MAX_BLOCKS (1 << 20)

static void push(struct blocks *b, int64_t off, int64_t len)
{
	if (len <= 0 || b->bad)
		return;
	if (b->n && b->off[b->n - 1] + b->len[b->n - 1] == off) {
		b->len[b->n - 1] += len; /* the common case: contiguous runs */
		return;
	}
	if (b->n == b->cap) {
		int64_t cap = b->cap ? 2 * b->cap : 16;
		if (cap > MAX_BLOCKS) {
			b->bad = 1;
			return;
		}
		int64_t *o = bc_xrealloc(b->off, cap * sizeof *o), *l = o ? bc_xrealloc(b->len, cap * sizeof *l) : NULL;
		if (!o || !l) {
			if (o)
				b->off = o;
			b->bad = 1;
			return;
		}
		b->off = o, b->len = l, b->cap = cap;
	}
	b->off[b->n] = off;
	b->len[b->n] = len;
	b->n++;
}

static void flatten(MPI_Datatype t, int64_t disp, struct blocks *b, int depth);

struct flatten_at {
	struct blocks *b;
	int depth;
};

static int flatten_copy(void *ctx, MPI_Datatype t, int64_t disp)
{
	struct flatten_at *at = ctx;
	flatten(t, disp, at->b, at->depth + 1);
	return at->b->bad;
}

/* flatten appends the bytes one element of t covers, displaced by disp. */
static void flatten(MPI_Datatype t, int64_t disp, struct blocks *b, int depth)
{
	struct mpivet_type_parts p;
	int kind = b->bad || depth > 32 ? MPIVET_TYPE_UNKNOWN : mpivet_type_open(t, &p);
	if (kind == MPIVET_TYPE_BASIC) {
		int size = 0;
		PMPI_Type_size(t, &size);
		push(b, disp, size);
		return;
	}
	if (kind == MPIVET_TYPE_UNKNOWN) { /* DARRAY and anything newer: not mapped, not checked */
		b->bad = 1;
		return;
	}
	struct flatten_at at = {b, depth};
	for (int g = 0; g < p.ngroups && !b->bad; g++)
		if (mpivet_type_each(&p, g, disp, flatten_copy, &at) < 0)
			b->bad = 1;
	mpivet_type_close(&p);
}

static int cmp_block(const void *a, const void *b)
{
	int64_t x = ((const int64_t *)a)[0], y = ((const int64_t *)b)[0];
	return x < y ? -1 : x > y;
}

/* make_flat builds the byte map of datatype t, or NULL if it cannot. */
static struct flat *make_flat(MPI_Datatype t)
{
	struct blocks b = {0};
	flatten(t, 0, &b, 0);
	struct flat *f = NULL;
	int64_t *pairs = NULL;
	if (b.bad || !(f = bc_xalloc(sizeof *f)) || !(pairs = malloc((b.n + 1) * 2 * sizeof *pairs)))
		goto fail;
	for (int64_t i = 0; i < b.n; i++)
		pairs[2 * i] = b.off[i], pairs[2 * i + 1] = b.len[i];
	qsort(pairs, b.n, 2 * sizeof *pairs, cmp_block);
	int64_t n = 0;
	for (int64_t i = 0; i < b.n; i++) { /* merge overlapping and touching blocks */
		int64_t o = pairs[2 * i], l = pairs[2 * i + 1];
		if (n && o <= b.off[n - 1] + b.len[n - 1]) {
			int64_t end = o + l > b.off[n - 1] + b.len[n - 1] ? o + l : b.off[n - 1] + b.len[n - 1];
			b.len[n - 1] = end - b.off[n - 1];
		} else {
			b.off[n] = o, b.len[n] = l, n++;
		}
	}
	free(pairs);
	f->refs = 1;
	f->n = n, f->off = b.off, f->len = b.len;
	f->lo = n ? b.off[0] : 0;
	f->hi = n ? b.off[n - 1] + b.len[n - 1] : 0;
	f->extent = mpivet_type_extent(t);
	f->size = 0;
	for (int64_t i = 0; i < n; i++)
		f->size += b.len[i];
	return f;
fail:
	bc_xfree(f), free(pairs), bc_xfree(b.off), bc_xfree(b.len);
	return NULL;
}

void bc_drop_flat(struct flat *f)
{
	if (f && --f->refs == 0) {
		bc_xfree(f->off), bc_xfree(f->len), bc_xfree(f);
	}
}

/* A small cache of byte maps by datatype handle; MPI_Type_free evicts. */
#define CACHE 64
static struct {
	uint64_t type;
	struct flat *f;
} cache[CACHE];
static unsigned cache_next, cache_last;

struct flat *bc_flat_of(MPI_Datatype t)
{
	uint64_t h = MPIVET_H(t);
	for (unsigned k = 0; k < CACHE; k++) { /* the last type used first */
		unsigned i = (cache_last + k) % CACHE;
		if (cache[i].f && cache[i].type == h) {
			cache[i].f->refs++;
			cache_last = i;
			return cache[i].f;
		}
	}
	struct flat *f = make_flat(t);
	if (!f)
		return NULL;
	unsigned i = cache_next++ % CACHE;
	bc_drop_flat(cache[i].f);
	cache[i].type = h, cache[i].f = f;
	cache_last = i;
	f->refs++;
	return f;
}

void bc_type_freed(uint64_t h)
{
	for (int i = 0; i < CACHE; i++)
		if (cache[i].f && cache[i].type == h) {
			bc_drop_flat(cache[i].f);
			cache[i].f = NULL;
		}
}

/* elements sets [*imin, *imax] to the elements of r whose bytes may meet
 * the offsets [os, oe) from its buffer. */
static void elements(const struct region *r, int64_t os, int64_t oe, int64_t *imin, int64_t *imax)
{
	const struct flat *t = r->t;
	int64_t ext = t->extent;
	*imin = 0, *imax = r->count - 1;
	if (ext > 0) {
		/* elements i whose [i*ext+lo, i*ext+hi) meets [os, oe) */
		int64_t a = os - t->hi, c = oe - 1 - t->lo;
		int64_t lo_i = a >= 0 ? a / ext + 1 : -((-a + ext - 1) / ext) + 1;
		int64_t hi_i = c >= 0 ? c / ext : -((-c + ext - 1) / ext);
		if (lo_i > *imin)
			*imin = lo_i;
		if (hi_i < *imax)
			*imax = hi_i;
	} else if (r->count > 1) {
		*imax = 0; /* a zero or negative extent: only the first element is mapped */
	}
}

/* first_block returns the first block of t that ends after offset rs. */
static int64_t first_block(const struct flat *t, int64_t rs)
{
	int64_t l = 0, h = t->n;
	while (l < h) {
		int64_t m = (l + h) / 2;
		if (t->off[m] + t->len[m] <= rs)
			l = m + 1;
		else
			h = m;
	}
	return l;
}

/* bc_covers_range reports whether the operation's datatype covers any byte of
 * [s, e). */
int bc_covers_range(const struct region *r, uintptr_t s, uintptr_t e)
{
	if (e <= r->lo || s >= r->hi)
		return 0;
	const struct flat *t = r->t;
	int64_t os = (int64_t)(s - r->buf), oe = (int64_t)(e - r->buf), imin, imax;
	elements(r, os, oe, &imin, &imax);
	for (int64_t i = imin; i <= imax; i++) {
		int64_t rs = os - i * t->extent, re = oe - i * t->extent, l = first_block(t, rs);
		if (l < t->n && t->off[l] < re)
			return 1;
	}
	return 0;
}

/* bc_hash_page hashes the bytes of page that r's datatype covers (FNV-1a). */
uint64_t bc_hash_page(const struct region *r, uintptr_t page)
{
	uint64_t h = 1469598103934665603ULL;
	uintptr_t s = page, e = page + pagesz;
	if (e <= r->lo || s >= r->hi)
		return h;
	const struct flat *t = r->t;
	int64_t os = (int64_t)(s - r->buf), oe = (int64_t)(e - r->buf), imin, imax;
	elements(r, os, oe, &imin, &imax);
	for (int64_t i = imin; i <= imax; i++) {
		int64_t rs = os - i * t->extent, re = oe - i * t->extent;
		for (int64_t k = first_block(t, rs); k < t->n && t->off[k] < re; k++) {
			int64_t a = t->off[k] > rs ? t->off[k] : rs, b = t->off[k] + t->len[k] < re ? t->off[k] + t->len[k] : re;
			const unsigned char *p = (const unsigned char *)(r->buf + i * t->extent);
			for (int64_t x = a; x < b; x++)
				h = (h ^ p[x]) * 1099511628211ULL;
		}
	}
	return h;
}

/* bc_bounds sets [*lo, *hi) to the address bounds of the bytes count elements
 * of type t at buf cover. */
void bc_bounds(const struct flat *t, uint64_t buf, int64_t count, uintptr_t *lo, uintptr_t *hi)
{
	int64_t last = t->extent > 0 ? (count - 1) * t->extent : 0;
	*lo = buf + t->lo;
	*hi = buf + last + t->hi;
}
