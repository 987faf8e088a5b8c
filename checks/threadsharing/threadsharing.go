// Package threadsharing defines the check of what the threads of a rank
// share under MPI_THREAD_MULTIPLE: every record carries the number of the
// thread that wrote it, and a call's entry and exit records bound the
// stretch of the log during which it was in progress, so the calls of
// several threads read as one sequence per thread, and calls of two threads
// in progress at once are known (trace.Call.Thread, Offset, ExitAt).
//
// It reports, in the run that happened: a request completed (waited for,
// tested, freed) by two threads at once, a persistent request started by
// two threads at once, a communicator freed while another thread's call on
// it is in progress, and a probe whose message another thread may receive
// (MPI_Probe then MPI_Recv split across threads: MPI_Mprobe is the cure).
package threadsharing

import (
	"embed"
	"fmt"

	"mpivet/check"
	"mpivet/trace"
)

// The check's documentation: thread-sharing.md is its Doc and the
// explanation of its one kind.
//
//go:embed *.md
var docFiles embed.FS

var checkDoc, kindDocs = check.Docs(docFiles, "thread-sharing")

// Check reports MPI objects used by several threads at once.
var Check = &check.Check{
	Name:     "thread-sharing",
	Kinds:    []string{"thread-sharing"},
	Doc:      checkDoc,
	KindDocs: kindDocs,
	Run:      run,
}

// keepMade bounds the makings of a handle kept: a call in progress while
// its handle was made anew more often than that is not compared (no
// finding rather than a false one).
const keepMade = 8

// multiple is MPI_THREAD_MULTIPLE's value in Open MPI and MPICH alike.
const multiple = 3

func run(pass *check.Pass) (any, error) {
	for _, p := range pass.In.Run.Procs {
		// The state page has a slot per thread that called MPI: with one,
		// the calls are one thread's, and not read again.
		if p.Level == multiple && p.Slots != 1 {
			newScan(pass, p).run()
		}
	}
	return nil, nil
}

// scan follows one rank's calls in the order of their entry records.
type scan struct {
	pass   *check.Pass
	p      *trace.Process
	inside []*trace.Call         // logged calls in progress at the current entry record
	probes map[uint8]*trace.Call // per thread, its last probe not yet followed by its receive
	seen   map[[3]uint64]bool    // findings made: one per pair of sites and rule
	// made: per request handle, the log offsets at which calls returned it
	// new (an MPI reuses the handles of freed requests), the last keepMade
	made map[uint64][]making
	// own: per request handle and thread, where that thread last made it
	// (a thread makes nothing while one of its calls is in progress, so
	// this is the making of that call's request however many makings of
	// other threads came since: the handle of a send that completed at
	// once is one and the same for every thread under both MPIs)
	own  map[ownKey]uint64
	null uint64   // MPI_REQUEST_NULL
	any  [2]int64 // MPI_ANY_SOURCE, MPI_ANY_TAG
}

func newScan(pass *check.Pass, p *trace.Process) *scan {
	s := &scan{pass: pass, p: p, probes: map[uint8]*trace.Call{}, seen: map[[3]uint64]bool{}, made: map[uint64][]making{},
		own: map[ownKey]uint64{}, any: [2]int64{-1, -1}}
	s.null, _ = p.Const("MPI_REQUEST_NULL")
	if v, ok := p.Const("MPI_ANY_SOURCE"); ok {
		s.any[0] = int64(v)
	}
	if v, ok := p.Const("MPI_ANY_TAG"); ok {
		s.any[1] = int64(v)
	}
	return s
}

func (s *scan) run() {
	for c := range s.p.Calls() {
		keep := s.inside[:0]
		for _, o := range s.inside {
			if !o.Returned || o.ExitAt > c.Offset {
				keep = append(keep, o)
			}
		}
		s.inside = keep
		for _, o := range s.inside {
			if o.Thread != c.Thread {
				s.overlap(o, c)
			}
		}
		s.probe(c)
		if !completes(c) && !c.Def.Has("start") && c.HasField("request") && c.Returned {
			h := c.Word("request")
			m := append(s.made[h], making{c.ExitAt, c.Thread})
			if len(m) > keepMade {
				m = append(m[:0], m[len(m)-keepMade:]...)
			}
			s.made[h] = m
			s.own[ownKey{h, c.Thread}] = c.ExitAt
		}
		if !c.Brief && (!c.Returned || c.ExitAt > c.Offset) {
			s.inside = append(s.inside, c.Keep())
		}
	}
}

// overlap looks at call c, entered while call o of another thread was in
// progress.
func (s *scan) overlap(o, c *trace.Call) {
	switch {
	case completes(o) && completes(c) && s.share(o, c):
		s.report(1, o, c, fmt.Sprintf("%s and %s complete the same request in two threads at once: a request may be "+
			"waited for, tested or freed by one thread at a time (MPI 4.0 §11.6.2); give each thread its own requests", o.Name(), c.Name()))
	case o.Def.Has("start") && c.Def.Has("start") && s.share(o, c):
		s.report(2, o, c, fmt.Sprintf("%s and %s start the same persistent request in two threads at once: "+
			"the second start finds it active", o.Name(), c.Name()))
	case c.Name() == "MPI_Comm_free" && o.HasField("comm") && o.Word("comm") == c.Word("comm"):
		s.report(3, o, c, fmt.Sprintf("MPI_Comm_free frees the communicator that another thread's %s is using: "+
			"every thread's calls on a communicator must return before it is freed", o.Name()))
	case o.Name() == "MPI_Comm_free" && c.HasField("comm") && c.Word("comm") == o.Word("comm"):
		s.report(3, o, c, fmt.Sprintf("%s uses the communicator that another thread is freeing with MPI_Comm_free", c.Name()))
	}
}

func completes(c *trace.Call) bool { return c.Def.Has("completion") }

// ownKey is a request handle and a thread.
type ownKey struct {
	h      uint64
	thread uint8
}

// making is a call that returned a request handle new: where its exit
// record is, and its thread.
type making struct {
	at     uint64
	thread uint8
}

// share reports whether calls a and b name a request in common (not null):
// the same handle, made by the same call. An MPI reuses the handles of
// freed requests (one freed in a call may be made anew for another thread
// before that call returns), and Open MPI returns one static handle for
// every send that completed at once: a call's request is the last made by
// its own thread before it was entered, or by any thread if its own made
// none.
func (s *scan) share(a, b *trace.Call) bool {
	for _, x := range s.requests(a) {
		for _, y := range s.requests(b) {
			if x == y && x != s.null && s.madeBefore(x, a) == s.madeBefore(y, b) {
				return true
			}
		}
	}
	return false
}

// madeBefore is the offset of the exit record of the call that made
// request handle h for call c (0: none seen).
func (s *scan) madeBefore(h uint64, c *trace.Call) uint64 {
	if own := s.own[ownKey{h, c.Thread}]; own != 0 && own < c.Offset {
		return own
	}
	var any uint64
	for _, m := range s.made[h] {
		if m.at < c.Offset && m.at > any {
			any = m.at
		}
	}
	return any
}

func (s *scan) requests(c *trace.Call) []uint64 {
	if c.HasField("array_of_requests") {
		return c.Words("array_of_requests")
	}
	if c.HasField("request") {
		return []uint64{c.Word("request")}
	}
	return nil
}

// probe follows probes and receives: a thread's MPI_Probe or MPI_Iprobe
// that found a message is outstanding until the thread's next receive on
// its communicator; another thread's probe or receive that may match the
// same message meanwhile may take it.
func (s *scan) probe(c *trace.Call) {
	name := c.Name()
	isProbe := name == "MPI_Probe" || name == "MPI_Iprobe"
	isRecv := name == "MPI_Recv" || name == "MPI_Irecv"
	if !isProbe && !isRecv {
		return
	}
	for t, q := range s.probes {
		if t != c.Thread && s.mayMatch(q, c) {
			s.report(4, q, c, fmt.Sprintf("%s in one thread and %s in another may match the same message (communicator, "+
				"source and tag) between the probe and the receive that follows it: the other thread can take the probed "+
				"message. Use MPI_Mprobe and MPI_Mrecv, which hand the probed message to the receive", q.Name(), name))
		}
	}
	if isProbe {
		s.probes[c.Thread] = c.Keep()
	} else if q := s.probes[c.Thread]; q != nil && q.Word("comm") == c.Word("comm") {
		delete(s.probes, c.Thread)
	}
}

// mayMatch reports whether a message that call a may match may be matched
// by call b: the same communicator, sources and tags equal or wildcards.
func (s *scan) mayMatch(a, b *trace.Call) bool {
	if a.Word("comm") != b.Word("comm") {
		return false
	}
	as, bs, at, bt := a.Int("source"), b.Int("source"), a.Int("tag"), b.Int("tag")
	return (as == bs || as == s.any[0] || bs == s.any[0]) && (at == bt || at == s.any[1] || bt == s.any[1])
}

func (s *scan) report(rule uint64, first, second *trace.Call, msg string) {
	k := [3]uint64{rule, first.PC, second.PC}
	if rule == 4 {
		k[2] = 0 // one finding per probe site
	}
	if s.seen[k] {
		return
	}
	s.seen[k] = true
	a := s.pass.At(s.p, first)
	a.Note = "in the rank's " + s.p.ThreadName(s.p.ThreadOf(first.Thread))
	b := s.pass.At(s.p, second)
	b.Note = "in its " + s.p.ThreadName(s.p.ThreadOf(second.Thread)) + ", meanwhile"
	s.pass.Report(check.Finding{Kind: "thread-sharing", Message: msg, Locations: []check.Location{a, b}})
}
