package main

import (
	"strconv"
	"strings"

	"mpivet/api"
)

// The fast path of a poll. Most polls find nothing, and a poll that finds
// nothing changes nothing the checks follow (record/record.h, Polls): the
// wrapper of such a poll (fastPoll) first calls the MPI with nothing but
// the thread's state page written (the poll's entry record, in the slot,
// as the live wait state shows it) and, when the call did nothing, counts
// it and returns: no log record, no hook of the clock protocol or of the
// buffer checker, nothing allocated. When the call did something, the
// wrapper puts the request handles back as they were on entry, runs every
// hook as usual with the MPI's call replaced by its result (the handles
// it returned), so that the hooks see the call exactly as without the
// fast path, only after it.
//
// The fast path is taken only when nothing needs to act before the MPI
// does (mpivet_poll_fast, in the generated prelude): no page protected by
// the buffer checker, or only pages the MPI writes with its own
// instructions (mpivet_bc_still: the poll runs with them closed, and the
// fault of the MPI's access to one enters the call for it, which then
// leaves as any other: buffers/buffers.h), no decision
// of a guided replay left for the rank (the clock protocol may hide
// requests or rewrite a wildcard's source), neither deterministic mode nor
// mpivet's own buffering. The argument checks run first, as always.

// fastReqs is the most requests a fast poll keeps a copy of (on the
// stack); a Testany over more takes the usual path.
const fastReqs = 16

// fastPoll reports whether the wrapper of c has the fast path: a poll whose outputs are a flag, an index and one status (which the
// wrapper supplies when the program ignores it), and whose only handles
// it changes are requests (MPI_Test, MPI_Testany, MPI_Iprobe,
// MPI_Request_get_status). Not MPI_Testall and MPI_Testsome (the clock
// protocol supplies their statuses before the call), MPI_Improbe (it
// makes a message) nor MPI_Win_test (the rma service's).
func fastPoll(c *api.Call) bool {
	if !c.Poll() || c.Has("rma") {
		return false
	}
	for _, p := range c.Params {
		switch p.Role {
		case api.New, api.News, api.Free, api.Indices, api.Ignore:
			return false
		}
	}
	return len(fastSaved(c)) <= 1
}

// fastArg is the last argument of mpivet_in_X and mpivet_out_X of a fast
// poll c ("" for other calls): 1 on the fast path, where they leave the
// buffer checker's hooks out and the exit record unwritten.
func fastArg(c *api.Call, fast string) []string {
	if fastPoll(c) {
		return []string{fast}
	}
	return nil
}

// fastSaved returns the request parameters a fast poll changes (an inout
// request, a request array), whose entry values it keeps in fr_.
func fastSaved(c *api.Call) []api.Param {
	var ps []api.Param
	for _, p := range c.Params {
		if p.Handle == "request" && (p.Role == api.Inout || p.Role == api.Reqs) {
			ps = append(ps, p)
		}
	}
	return ps
}

// fastLoop writes, for each saved request, the statement stmt with $R
// the program's request and $S its copy in fr_ (a call has one request
// parameter at most: fastPoll).
func fastLoop(w writer, c *api.Call, stmt string) {
	for _, p := range fastSaved(c) {
		if p.Role == api.Inout {
			w("\t\t%s\n", strings.NewReplacer("$R", "*"+p.Name, "$S", "fr_[0]").Replace(stmt))
			continue
		}
		s := strings.NewReplacer("$R", p.Name+"[i_]", "$S", "fr_[i_]").Replace(stmt)
		w("\t\tfor (int i_ = 0; i_ < %s; i_++)\n\t\t\t%s\n", p.Len, s)
	}
}

// fastCond is the condition of c's fast path (fast_, computed before
// mpivet_in_X, whose argument it is).
func fastCond(c *api.Call) string {
	cond := []string{"mpivet_poll_fast()"}
	for _, p := range fastSaved(c) {
		if p.Role == api.Inout {
			cond = append(cond, p.Name)
		} else {
			cond = append(cond, p.Name, p.Len+" >= 0", p.Len+" <= "+strconv.Itoa(fastReqs))
		}
	}
	return strings.Join(cond, " && ")
}

// genFastDecl declares, in the wrapper of a fast poll c, fast_, rcf_ and
// the copy of its requests (fr_).
func genFastDecl(w writer, c *api.Call) {
	if !fastPoll(c) {
		return
	}
	if s := fastSaved(c); len(s) > 0 && s[0].Role == api.Inout {
		w("\tMPI_Request fr_[1];\n")
	} else if len(s) > 0 {
		w("\tMPI_Request fr_[%d];\n", fastReqs)
	}
	w("\tint fast_ = %s, rcf_ = MPI_SUCCESS;\n", fastCond(c))
}

// genFastPoll writes the fast path of c's wrapper (after its entry record,
// status, k_ and argument checks): fast_ says whether it was taken, and
// rcf_ is the MPI's result when it was.
func genFastPoll(w writer, c *api.Call, inArgs, callArgs []string) {
	ok := "fast_"
	if argsChecked(c) {
		ok = "fast_ && !bad_"
	}
	w("\tif (%s) {\n", ok)
	fastLoop(w, c, "$S = $R;")
	w("\t\trcf_ = P%s(%s);\n", c.Name, strings.Join(callArgs, ", "))
	w("\t\tif (mpivet_out_%s(%s)) {\n\t\t\tmpivet_guard--;\n\t\t\treturn rcf_;\n\t\t}\n",
		c.Name, strings.Join(append(append([]string{"e_", "rcf_"}, recordOutAs(c, "rcf_")...), "1"), ", "))
	if len(fastSaved(c)) > 0 {
		w("\t\t/* it did something: the hooks see the requests of the entry first */\n")
		fastLoop(w, c, "{ MPI_Request t_ = $R; $R = $S; $S = t_; }")
	}
	w("\t}\n\tif (fast_) { /* the usual entry: the buffer checker's hook */\n")
	w("\t\te_ = mpivet_in_%s(%s);\n", c.Name, strings.Join(append(inArgs, "0"), ", "))
	if argsChecked(c) {
		w("\t\tfast_ = !bad_;\n")
	}
	w("\t}\n")
}

// genFastCall writes the MPI's call of a fast poll's wrapper on its usual
// path: the result of the fast path's call if it was taken.
func genFastCall(w writer, c *api.Call, callArgs []string) {
	w("\tint rc_ = rcf_;\n")
	if len(fastSaved(c)) > 0 {
		w("\tif (fast_) {\n")
		fastLoop(w, c, "$R = $S;")
		w("\t} else {\n\t\trc_ = P%s(%s);\n\t}\n", c.Name, strings.Join(callArgs, ", "))
		return
	}
	w("\tif (!fast_)\n\t\trc_ = P%s(%s);\n", c.Name, strings.Join(callArgs, ", "))
}

// recordOutAs is recordOut with the result named rc instead of rc_.
func recordOutAs(c *api.Call, rc string) []string {
	args := recordOut(c)
	for i, a := range args {
		args[i] = strings.ReplaceAll(a, "rc_ ", rc+" ")
	}
	return args
}

// fastPrelude is the condition of the fast path of polls (fastPoll).
const fastPrelude = `/* mpivet_poll_fast says whether a poll may call the MPI before any hook
 * (internal/gen/fastpoll.go): no page protected, or only pages a poll may
 * leave closed (mpivet_bc_still), no decision of a guided replay left,
 * neither deterministic mode nor mpivet's buffering. */
static inline int mpivet_poll_fast(void)
{
	return !((mpivet_bc_live & !mpivet_bc_still) | mpivet_ck_forcing | mpivet_dt_on | mpivet_slack_on);
}

`
