/*
 * declared/: see declared.h. What a call gives is logged once per call
 * site, buffer address and datatype, and at most PER_SITE times per call
 * site (a site that sends from a new heap block every iteration stops being
 * logged), so that the cost grows with the program's call sites, not with
 * its iterations: a call already seen costs one hash and one compare.
 *
 * A local variable is found from the calling function's frame: its
 * canonical frame address (CFA), which GCC's debug information takes as the
 * frame base of every function (DW_OP_call_frame_cfa). The unwinder gives
 * it, from the frames around the one whose return address is the call site,
 * once per record; and those of a few callers above it, whose locals a
 * buffer passed down through a pointer may be.
 *
 * The tables are not locked: arguments/ calls in under its own lock.
 */
#include <unwind.h>

#include "declared.h"
#include "../record/record.h"
#include "../generated/ids.h"
#include "../signatures/signature.h"

#define SEEN 4096    /* call site, buffer and datatype already logged (a hash set; a collision logs again) */
#define SITES 1024   /* records per call site (a hash table; colliding sites share a count) */
#define PER_SITE 64

static struct {
	uint64_t pc, buf, type;
} seen[SEEN];
static uint32_t per_site[SITES];

#define CALLERS 4 /* frames above the calling function's, whose locals a buffer passed down may be */

/* The frames from the calling function's up: return address into each
 * function (f[2i]) and its CFA (f[2i+1]). */
struct frame_search {
	uint64_t ret;
	uint64_t f[2 * (CALLERS + 1)];
	int n; /* -1: the call site not met yet */
};

/* The unwinder's context of a frame whose return address (IP) is into a
 * function has the CFA of the frame it returns from; the function's own
 * CFA is the next context's, whose IP is the return address into its
 * caller. */
static _Unwind_Reason_Code at_frame(struct _Unwind_Context *c, void *arg)
{
	struct frame_search *s = arg;
	uint64_t ip = (uint64_t)_Unwind_GetIP(c);
	if (s->n < 0) {
		if (ip == s->ret)
			s->f[0] = ip, s->n = 0;
		return _URC_NO_REASON;
	}
	s->f[2 * s->n + 1] = (uint64_t)_Unwind_GetCFA(c);
	s->n++;
	if (s->n > CALLERS || !ip)
		return _URC_END_OF_STACK;
	s->f[2 * s->n] = ip;
	return _URC_NO_REASON;
}

void mpivet_declared(unsigned call, int param, uint64_t buf, int64_t count, MPI_Datatype t)
{
	uint64_t pc = mpivet_call_pc, h = MPIVET_H(t);
	if (!buf || !pc || t == MPI_DATATYPE_NULL)
		return;
	uint64_t k = (pc * 0x9E3779B97F4A7C15ULL) ^ (buf * 0xC2B2AE3D27D4EB4FULL) ^ (h * 0x165667B19E3779F9ULL);
	size_t i = (size_t)(k >> 52) & (SEEN - 1);
	if (seen[i].pc == pc && seen[i].buf == buf && seen[i].type == h)
		return;
	size_t j = (size_t)((pc * 0x9E3779B97F4A7C15ULL) >> 54) & (SITES - 1);
	if (per_site[j] >= PER_SITE)
		return;
	per_site[j]++;
	seen[i].pc = pc, seen[i].buf = buf, seen[i].type = h;
	uint64_t w[7 + 2 * (CALLERS + 1)] = {call, (uint64_t)(int64_t)param, buf, (uint64_t)count, mpivet_sig(t),
					     (uint64_t)mpivet_type_named(t), h, pc, 0};
	struct frame_search s = {.ret = pc, .n = -1};
	if (!mpivet_site_hook) /* a Python line stands for the call site: no frame has it */
		_Unwind_Backtrace(at_frame, &s);
	for (int f = 0; f < 2 * s.n; f++)
		w[7 + f] = s.f[f];
	mpivet_meta(MPIVET_META_DECLARED, w, s.n > 0 ? 7 + 2 * (uint64_t)s.n : 9);
}
