// Package collective defines the collective-mismatch check, and
// collective-missing: collectives some members never call.
package collective

import (
	"embed"
	"fmt"
	"iter"
	"sort"
	"strings"

	"mpivet/check"
	"mpivet/checks/internal/comms"
	"mpivet/trace"
)

// The check's documentation: collective-mismatch.md is its Doc, and every other
// KIND.md explains a kind (mpivet explain KIND, docs/checks.md).
//
//go:embed *.md
var docFiles embed.FS

var checkDoc, kindDocs = check.Docs(docFiles, "collective-mismatch")

// Check reports collectives that the members of a communicator call
// differently.
var Check = &check.Check{
	Name:     "collective-mismatch",
	Doc:      checkDoc,
	Kinds:    []string{"collective-mismatch", "collective-missing"},
	KindDocs: kindDocs,
	Requires: []*check.Check{comms.Analyzer},
	Run:      run,
}

// call is one collective of one rank, described the same way on every rank.
type call struct {
	proc  *trace.Process
	comms *comms.Index
	c     *trace.Call
	what  string // name, root, op: what is compared
	text  string // the same for a report
	on    string // what it is a collective on: the communicator's name, or the file's
}

// userFn is the function an MPI_Op_create gave: key identifies it the same
// way in every rank, name shows it.
type userFn struct{ key, name string }

func describe(p *trace.Process, c *trace.Call, inter bool, ops map[uint64]userFn) (what, text string) {
	parts := []string{c.Name()}
	if c.HasField("root") && !inter {
		parts = append(parts, fmt.Sprintf("root=%d", c.Int("root")))
	}
	if f := c.File(); f != nil { // MPI-IO: what every member must give alike
		what, text := fileParts(p, c, f)
		return strings.Join(append(parts, what...), " "), strings.Join(append(parts, text...), " ")
	}
	text = strings.Join(parts, " ")
	if c.HasField("op") {
		if names := p.Consts[c.Word("op")]; len(names) > 0 {
			parts = append(parts, "op="+names[0])
			text += " op=" + names[0]
		} else if fn, ok := ops[c.Word("op")]; ok {
			parts = append(parts, "op="+fn.key)
			text += " op=" + fn.name
		} else {
			parts = append(parts, "op=user-defined")
			text += " op=user-defined"
		}
	}
	return strings.Join(parts, " "), text
}

// userOp identifies the function an MPI_Op_create was given, and whether
// the operation commutes. Ranks run the same program, but not at the same
// addresses: position-independent executables and libraries are loaded
// wherever address-space randomisation puts them, so the function is
// compared by its module and its address in that module (what the module's
// symbols give, the same in every process), and shown by name when the
// module has symbols. A function outside every module mapped at MPI_Init
// (code loaded later) cannot be placed and compares equal to any other.
func userOp(pass *check.Pass, p *trace.Process, c *trace.Call) userFn {
	fn := c.Word("user_fn")
	op := userFn{"unknown", "a user function"}
	if pass.In.Sym != nil {
		if l := pass.In.Sym.LookupExact(p.Maps, fn); l.Module != "" && l.Offset != 0 {
			op.key = l.Addr()
			op.name = l.Addr()
			if l.Function != "" {
				op.name = l.Function
			}
		}
	}
	if c.Int("commute") == 0 {
		op.key += " (non-commutative)"
		op.name += " (non-commutative)"
	}
	return op
}

// rankStream is one rank's calls, read as the comparison needs them.
type rankStream struct {
	p    *trace.Process
	ix   *comms.Index
	t    *comms.Tracker    // communicators as of each call
	ops  map[uint64]userFn // user-defined operations by handle, as the rank goes
	next func() (*trace.Call, bool)
	stop func()
	done bool
	// The rank's open files by handle (MPI-IO: files.go), and how many it
	// opened on each communicator.
	files map[uint64]*fileSeq
	opens map[string]int
	// Repetitions of folded loops (fold.go): the comparisons by
	// communicator key, the collectives the rank queued in the current
	// and the latest repetition (bad: too many to keep).
	keys         map[string]*onComm
	rep, lastRep []queued
	bad, lastBad bool
	folds        uint64
}

// onComm is the comparison of the collectives on one communicator: the
// collectives of each member not compared yet, from the base-th on.
type onComm struct {
	members []int // the world ranks that may call collectives on it
	queue   map[int]queue
	cycle   int // comparisons made in a row on members' runs of one period (fold.go)
	base    int
	any     map[int]bool // members that made one
	over    bool         // a mismatch was reported: what follows is not comparable
	missed  bool         // members ran out of collectives here: collective-missing was decided
	finding func()       // the report of that mismatch
}

// run compares, for each communicator, the k-th collective of every
// member as soon as each has made its k-th or ended, reading the ranks'
// calls in step (one collective of each rank in turn): it keeps only the
// collectives some member has not reached yet, not every rank's
// collectives. Findings are reported in the order of the communicators'
// keys.
func run(pass *check.Pass) (any, error) {
	cs := pass.ResultOf[comms.Analyzer].(*comms.Result)
	var streams []*rankStream
	byRank := map[int]*rankStream{}
	for _, p := range pass.In.Run.Procs {
		if p.Rank < 0 || byRank[p.Rank] != nil {
			continue
		}
		s := &rankStream{p: p, ix: cs.Of(p), t: comms.NewTracker(p), ops: map[uint64]userFn{},
			files: map[uint64]*fileSeq{}, opens: map[string]int{}}
		next, stop := iter.Pull(p.CallsFolded(s))
		s.next, s.stop = next, stop
		defer stop()
		streams = append(streams, s)
		byRank[p.Rank] = s
	}
	all := make([]int, 0, len(streams))
	for _, s := range streams {
		all = append(all, s.p.Rank)
	}
	sort.Ints(all)
	keys := map[string]*onComm{}
	for _, s := range streams {
		s.keys = keys
	}
	for live := len(streams); live > 0; {
		live = 0
		for _, s := range streams {
			if s.done {
				continue
			}
			live++
			if key := s.advance(pass, keys, all); key != "" {
				keys[key].compare(pass, key, byRank)
			} else {
				// The rank ended: comparisons waiting for it may be ready.
				for k, oc := range keys {
					oc.compare(pass, k, byRank)
				}
			}
		}
	}
	names := make([]string, 0, len(keys))
	for k, oc := range keys {
		if oc.finding != nil {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		keys[k].finding()
	}
	return nil, nil
}

// advance reads s up to its next collective and queues it; it returns the
// key of its communicator, or "" when the rank has ended.
func (s *rankStream) advance(pass *check.Pass, keys map[string]*onComm, all []int) string {
	for {
		c, ok := s.next()
		if !ok {
			s.done = true
			s.stop()
			return ""
		}
		h := c.Word("comm")
		key, inter, members := s.t.Key(h), s.t.IsInter(h), s.t.All(h)
		on := ""
		s.t.Created(c)
		if c.Name() == "MPI_Op_create" && c.Returned && c.RC == 0 {
			s.ops[c.Word("op")] = userOp(pass, s.p, c)
		}
		switch {
		case c.Def.Has("fcoll") && !c.HasField("comm"): // on an open file: its own sequence
			f := s.fileCall(c)
			if f == nil {
				continue
			}
			key, inter, members, on = f.key, f.inter, f.members, f.on
		case !c.Def.Has("coll") && !c.Def.Has("fcoll") && !c.Def.Has("collinit") || c.Def.Has("finalize") || !c.HasField("comm"):
			continue
		default:
			on = s.ix.Name(h)
			s.opened(c, key, inter, members)
		}
		oc := keys[key]
		if oc == nil {
			switch {
			case key == "world":
				members = all
			case members == nil: // the rank's own (self, unknown): compared with no one
				members = []int{s.p.Rank}
			default:
				members = append([]int(nil), members...)
				sort.Ints(members)
			}
			oc = &onComm{members: members, queue: map[int]queue{}, any: map[int]bool{}}
			keys[key] = oc
		}
		if !oc.any[s.p.Rank] {
			oc.any[s.p.Rank] = true
			if !contains(oc.members, s.p.Rank) { // records that disagree: compare it too
				oc.members = append(oc.members, s.p.Rank)
				sort.Ints(oc.members)
			}
		}
		if !oc.over {
			what, text := describe(s.p, c, inter, s.ops)
			cl := call{s.p, s.ix, c.Keep(), what, text, on}
			oc.queue[s.p.Rank] = append(oc.queue[s.p.Rank], entry{call: cl})
			s.queued(key, cl)
		}
		return key
	}
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// compare compares the collectives on the communicator as far as every
// member has made them or ended.
func (oc *onComm) compare(pass *check.Pass, key string, byRank map[int]*rankStream) {
	for !oc.over {
		var at []call
		var never []int // members that ended without this one
		variants := map[string][]int{}
		period := oc.bulk()
		for _, r := range oc.members {
			q := oc.queue[r]
			if len(q) == 0 {
				if s := byRank[r]; s != nil && !s.done {
					return // its next may be this one: not yet known
				}
				never = append(never, r)
				continue
			}
			at = append(at, q.front())
			variants[q.front().what] = append(variants[q.front().what], r)
		}
		if len(at) == 0 {
			return
		}
		k := oc.base
		if len(never) > 0 && !oc.missed {
			oc.missed = true
			if f := missing(pass, k, at, never, byRank); f != nil {
				oc.finding, oc.over = f, true
				continue
			}
		}
		for _, cl := range at {
			q, ended := oc.queue[cl.proc.Rank].pop()
			oc.queue[cl.proc.Rank] = q
			if ended {
				period = 0
			}
		}
		oc.base++
		if period > 0 {
			oc.cycle++ // undone below by a finding, which ends the comparison
		} else {
			oc.cycle = 0
		}
		if len(oc.any) < 2 && oc.onlyOne(byRank) {
			continue // one rank's collectives: compared with no one
		}
		if len(variants) < 2 {
			if msg := dataMismatch(at); msg != "" {
				oc.finding = func() { reportData(pass, k, at, msg) }
				oc.over = true
			}
			continue
		}
		oc.finding = func() { report(pass, k, at, variants) }
		oc.over = true
	}
	oc.queue = nil
}

// missing returns the report of collective number k on a communicator,
// which the ranks of at called and returned from while the members never
// ended without calling it, having reached MPI_Finalize; nil if that is
// not what happened. Callers still blocked in it, and members that did
// not finalize (crashed, interrupted), are left to the deadlock and
// failure checks; an intercommunicator's groups are keyed apart, so not
// compared here. Only the first collective some members lack is looked at.
func missing(pass *check.Pass, k int, at []call, never []int, byRank map[int]*rankStream) func() {
	first := at[0]
	if first.c.HasField("comm") && first.comms.IsInter(first.c.Word("comm")) {
		return nil
	}
	var locs []check.Location
	var callers []int
	for _, cl := range at {
		if !cl.c.Returned {
			return nil // blocked in it: a deadlock, not this
		}
		l := pass.At(cl.proc, cl.c)
		l.Note = "called here"
		locs = append(locs, l)
		callers = append(callers, cl.proc.Rank)
	}
	for _, m := range never {
		s := byRank[m]
		if s == nil || s.p.FinalizeCall() == nil {
			return nil // not seen to the end
		}
		l := pass.At(s.p, s.p.FinalizeCall())
		l.Note = "reached MPI_Finalize without calling it"
		locs = append(locs, l)
	}
	return func() {
		pass.Report(check.Finding{
			Kind:  "collective-missing",
			Ranks: append(append([]int{}, callers...), never...),
			Message: fmt.Sprintf("collective number %d on %s, %s, is called by %s %s and never by %s %s, which reached MPI_Finalize: every member of a communicator must call each collective on it",
				k+1, first.on, first.text, check.Plural(len(callers), "rank", "ranks"), check.RankList(callers),
				check.Plural(len(never), "rank", "ranks"), check.RankList(never)),
			Locations: locs,
		})
	}
}

// onlyOne reports whether only one rank ever makes collectives on the
// communicator: the other members have ended without one.
func (oc *onComm) onlyOne(byRank map[int]*rankStream) bool {
	for _, r := range oc.members {
		if s := byRank[r]; !oc.any[r] && s != nil && !s.done {
			return false
		}
	}
	return true
}

func report(pass *check.Pass, k int, at []call, variants map[string][]int) {
	// Two functions of the same name (static functions of two files) are
	// told apart by their addresses.
	texts := map[string]string{}
	shown := map[string]int{}
	for _, cl := range at {
		if _, ok := texts[cl.what]; !ok {
			texts[cl.what] = cl.text
			shown[cl.text]++
		}
	}
	for what, text := range texts {
		if shown[text] > 1 {
			texts[what] = text + " [" + what + "]"
		}
	}
	var kinds []string
	for what, rs := range variants {
		kinds = append(kinds, fmt.Sprintf("%s on %s %s", texts[what], check.Plural(len(rs), "rank", "ranks"), check.RankList(rs)))
	}
	sort.Strings(kinds)
	var locs []check.Location
	var ranks []int
	for _, cl := range at {
		l := pass.At(cl.proc, cl.c)
		l.Note = texts[cl.what]
		locs = append(locs, l)
		ranks = append(ranks, cl.proc.Rank)
	}
	first := at[0]
	pass.Report(check.Finding{
		Ranks: ranks,
		Message: fmt.Sprintf("collective number %d on %s differs between ranks: %s",
			k+1, first.on, strings.Join(kinds, "; ")),
		Locations: locs,
	})
}

// Signature words (layer/src/signatures/signature.c): 0 is unknown, bit 63 marks a
// mixed sequence, else class << 8 | size, where class 2 is MPI_PACKED,
// which matches anything.
func comparable(sig uint64) bool { return sig != 0 && (sig>>63 != 0 || sig>>8 != 2) }

// side is what one rank gives one side (send or receive) of a collective.
type side struct {
	cl   call
	send bool
	sig  uint64
	n    uint64
}

func sidesOf(at []call) []side {
	var ss []side
	for _, cl := range at {
		d := cl.c.Data()
		if d == nil {
			continue
		}
		if d.Send && comparable(d.SendSig) {
			ss = append(ss, side{cl, true, d.SendSig, d.SendN})
		}
		if d.Recv && comparable(d.RecvSig) {
			ss = append(ss, side{cl, false, d.RecvSig, d.RecvN})
		}
	}
	return ss
}

// text describes what a side gives, from the call's own arguments.
func (s side) text() string {
	c, p := s.cl.c, s.cl.proc
	count, typ, verb := "sendcount", "sendtype", "sends"
	if !s.send {
		count, typ, verb = "recvcount", "recvtype", "receives"
	}
	if !c.HasField(typ) { // one datatype: Bcast, the reductions
		count, typ, verb = "count", "datatype", "gives"
		if !c.HasField(count) {
			count = "recvcount"
		}
	}
	t := check.HandleName(p, c.Word(typ))
	if !c.HasField(count) || s.cl.c.Data().Totals {
		return fmt.Sprintf("rank %d %s %s", p.Rank, verb, t)
	}
	return fmt.Sprintf("rank %d %s %d x %s", p.Rank, verb, c.Int(count), t)
}

// dataMismatch compares the type signatures the ranks gave one collective
// and says how they differ ("" if they agree, or cannot be compared).
func dataMismatch(at []call) string {
	ss := sidesOf(at)
	if len(ss) < 2 {
		return ""
	}
	totals := ss[0].cl.c.Data().Totals
	if !totals {
		// every significant block is one type signature: (signature, periods)
		first := ss[0]
		for _, s := range ss[1:] {
			if s.n != first.n || (s.n != 0 && s.sig != first.sig) {
				return fmt.Sprintf("%s, but %s: the type signatures differ", first.text(), s.text())
			}
		}
		return ""
	}
	// vector variants: one unit signature, and as much received as sent
	var first *side
	for i, s := range ss {
		if s.n == 0 && !s.cl.c.Data().NoCount {
			continue
		}
		if first == nil {
			first = &ss[i]
		} else if s.sig != first.sig {
			return fmt.Sprintf("%s, but %s: the type signatures differ", first.text(), s.text())
		}
	}
	// Totals add periods of one signature: every rank of the communicator
	// must be there, with every significant side comparable.
	cl := ss[0].cl
	if cl.c.Data().NoCount || len(at) != len(cl.comms.Members(cl.c.Word("comm"))) {
		return ""
	}
	significant := 0
	for _, cl := range at {
		d := cl.c.Data()
		if d == nil {
			return "" // a rank whose data is unknown (Fortran, threads)
		}
		if d.Send {
			significant++
		}
		if d.Recv {
			significant++
		}
	}
	if significant != len(ss) {
		return "" // MPI_PACKED, or a type the layer could not classify
	}
	var sent, recvd uint64
	for _, cl := range at {
		if cl.c.Data().Send {
			sent += cl.c.Data().SendN
		}
	}
	if strings.Contains(cl.c.Name(), "llgatherv") { // every rank receives what all send
		for _, cl := range at {
			if d := cl.c.Data(); d.Recv && d.RecvN != sent {
				return fmt.Sprintf("the ranks send %d elements in all, but rank %d's recvcounts add up to %d", sent, cl.proc.Rank, d.RecvN)
			}
		}
		return ""
	}
	for _, cl := range at {
		if cl.c.Data().Recv {
			recvd += cl.c.Data().RecvN
		}
	}
	if sent != recvd {
		return fmt.Sprintf("the ranks send %d elements in all but receive %d: the counts do not match", sent, recvd)
	}
	return ""
}

func reportData(pass *check.Pass, k int, at []call, msg string) {
	var locs []check.Location
	for _, cl := range at {
		l := pass.At(cl.proc, cl.c)
		l.Note = check.Describe(cl.proc, cl.c)
		locs = append(locs, l)
	}
	first := at[0]
	pass.Report(check.Finding{
		Message: fmt.Sprintf("collective number %d on %s (%s) is given different data: %s",
			k+1, first.on, first.c.Name(), msg),
		Locations: locs,
	})
}
