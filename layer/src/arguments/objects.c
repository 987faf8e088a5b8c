/*
 * arguments/objects.c: the table of objects (objects.h). It grows with the
 * distinct handle values the program makes, never with calls; it is not
 * shrunk, since a freed value is remembered as freed.
 */
#include "objects.h"
#include "../record/record.h"

#include <stdlib.h>
#include <string.h>

static struct obj *slots;
static uint64_t cap, used; /* cap is a power of two */
static int lock_word;

static uint64_t hash(int kind, uint64_t h)
{
	uint64_t x = (h ^ (uint64_t)kind << 56) * 0x9E3779B97F4A7C15ULL;
	return x ^ x >> 29;
}

static struct obj *probe(int kind, uint64_t h, int add)
{
	if (!slots)
		return NULL;
	for (uint64_t i = hash(kind, h) & (cap - 1);; i = (i + 1) & (cap - 1)) {
		struct obj *o = &slots[i];
		if (o->kind == kind && o->h == h)
			return o;
		if (!o->kind) {
			if (!add)
				return NULL;
			o->kind = (uint8_t)kind;
			o->h = h;
			used++;
			return o;
		}
	}
}

static int grow(void)
{
	uint64_t ncap = cap ? cap * 2 : 256;
	struct obj *old = slots, *n = calloc(ncap, sizeof *n);
	if (!n)
		return 0;
	uint64_t ocap = cap;
	slots = n;
	cap = ncap;
	used = 0;
	for (uint64_t i = 0; i < ocap; i++)
		if (old[i].kind)
			*probe(old[i].kind, old[i].h, 1) = old[i];
	free(old);
	return 1;
}

struct obj *args_find(int kind, uint64_t h) { return probe(kind, h, 0); }

struct obj *args_put(int kind, uint64_t h)
{
	struct obj *o = probe(kind, h, 0);
	if (o)
		return o;
	if ((used + 1) * 2 > cap && !grow())
		return NULL;
	return probe(kind, h, 1);
}

void args_lock(void)
{
	if (mpivet_mt)
		while (__atomic_exchange_n(&lock_word, 1, __ATOMIC_ACQUIRE))
			;
}

void args_unlock(void)
{
	if (mpivet_mt)
		__atomic_store_n(&lock_word, 0, __ATOMIC_RELEASE);
}
