/*
 * arguments/objects.c: the table of objects (objects.h). It grows with the
 * distinct handle values the program makes, never with calls; it is not
 * shrunk, since a freed value is remembered as freed. Entries never move
 * (the index holds pointers to them, allocated in blocks): a check holds
 * a communicator's entry while it looks up datatypes, which may grow the
 * index.
 */
#include "objects.h"
#include "../record/record.h"

#include <stdlib.h>
#include <string.h>

static struct obj **slots;
static uint64_t cap, used; /* cap is a power of two */
static struct obj *block;  /* entries not handed out yet */
static unsigned block_left;
static int lock_word;

static uint64_t hash(int kind, uint64_t h)
{
	uint64_t x = (h ^ (uint64_t)kind << 56) * 0x9E3779B97F4A7C15ULL;
	return x ^ x >> 29;
}

/* probe gives the slot of (kind, h): the entry's, or the empty one where it
 * would go. */
static struct obj **probe(int kind, uint64_t h)
{
	for (uint64_t i = hash(kind, h) & (cap - 1);; i = (i + 1) & (cap - 1)) {
		struct obj *o = slots[i];
		if (!o || (o->kind == kind && o->h == h))
			return &slots[i];
	}
}

static int grow(void)
{
	uint64_t ncap = cap ? cap * 2 : 256, ocap = cap;
	struct obj **old = slots, **n = calloc(ncap, sizeof *n);
	if (!n)
		return 0;
	slots = n;
	cap = ncap;
	for (uint64_t i = 0; i < ocap; i++)
		if (old[i])
			*probe(old[i]->kind, old[i]->h) = old[i];
	free(old);
	return 1;
}

struct obj *args_find(int kind, uint64_t h) { return slots ? *probe(kind, h) : NULL; }

struct obj *args_put(int kind, uint64_t h)
{
	struct obj *o = args_find(kind, h);
	if (o)
		return o;
	if ((used + 1) * 2 > cap && !grow())
		return NULL;
	if (!block_left) {
		block = calloc(256, sizeof *block);
		if (!block)
			return NULL;
		block_left = 256;
	}
	o = &block[256 - block_left--];
	o->kind = (uint8_t)kind;
	o->h = h;
	*probe(kind, h) = o;
	used++;
	return o;
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
