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
 * once per record.
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

struct frame_search {
	uint64_t ret, cfa;
	int found;
};

/* The unwinder's context of a frame whose return address (IP) is into a
 * function has the CFA of the frame it returns from; the function's own
 * CFA is the next context's. */
static _Unwind_Reason_Code at_frame(struct _Unwind_Context *c, void *arg)
{
	struct frame_search *s = arg;
	if (s->found) {
		s->cfa = (uint64_t)_Unwind_GetCFA(c);
		return _URC_END_OF_STACK;
	}
	s->found = (uint64_t)_Unwind_GetIP(c) == s->ret;
	return _URC_NO_REASON;
}

/* caller_cfa gives the CFA of the function whose return address is pc (0
 * if no frame of this thread's stack has it). */
static uint64_t caller_cfa(uint64_t pc)
{
	struct frame_search s = {pc, 0, 0};
	_Unwind_Backtrace(at_frame, &s);
	return s.cfa;
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
	/* a Python line stands for the call site: no frame has it */
	uint64_t cfa = mpivet_site_hook ? 0 : caller_cfa(pc);
	uint64_t w[9] = {call, (uint64_t)(int64_t)param, buf, (uint64_t)count, mpivet_sig(t), (uint64_t)mpivet_type_named(t),
			 h, pc, cfa};
	mpivet_meta(MPIVET_META_DECLARED, w, 9);
}
