/*
 * The requests deterministic mode follows, by handle (world.c says what the
 * mode does): the nonblocking operations started (struct treq, with the
 * logical time they were posted and a receive's mirror), and the
 * persistent requests made with a known peer, each of whose MPI_Start is
 * then followed like an MPI_Isend or MPI_Irecv (hooks.c).
 */
#define _GNU_SOURCE
#include "requests.h"

#include <stdlib.h>

static struct treq *treqs;
static struct pers *perss;

struct treq *dt_track(MPI_Request h, struct prc *p)
{
	struct treq *t = calloc(1, sizeof *t);
	t->h = h, t->post = dt_lt, t->p = p;
	t->next = treqs, treqs = t;
	return t;
}

struct treq *dt_tfind(MPI_Request h)
{
	if (h == MPI_REQUEST_NULL)
		return NULL;
	for (struct treq *t = treqs; t; t = t->next)
		if (t->h == h)
			return t;
	return NULL;
}

void dt_tdrop(struct treq *t)
{
	for (struct treq **q = &treqs; *q; q = &(*q)->next)
		if (*q == t) {
			*q = t->next;
			free(t);
			return;
		}
}

/* dt_pers_new follows persistent request h: a send (or receive) with peer
 * (a rank of d) and tag. */
void dt_pers_new(MPI_Request h, struct dcomm *d, int send, int peer, int tag)
{
	struct pers *p = calloc(1, sizeof *p);
	p->h = h, p->d = d, p->send = send, p->peer = peer, p->tag = tag;
	p->next = perss, perss = p;
}

struct pers *dt_pers_find(MPI_Request h)
{
	for (struct pers *p = perss; p; p = p->next)
		if (p->h == h)
			return p;
	return NULL;
}

void dt_pers_free(MPI_Request h)
{
	for (struct pers **q = &perss; *q; q = &(*q)->next)
		if ((*q)->h == h) {
			struct pers *p = *q;
			*q = p->next;
			free(p);
			return;
		}
}

/* dt_inactive: h is a persistent request the mode follows, not started. */
int dt_inactive(MPI_Request h) { return dt_pers_find(h) && !dt_tfind(h); }
