// Package failure defines the program-failure check.
package failure

import (
	"embed"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"mpivet/api"
	"mpivet/check"
	"mpivet/checks/internal/waitstate"
	"mpivet/symbolize"
	"mpivet/trace"
)

// The check's documentation: program-failure.md is its Doc, and every other
// KIND.md explains a kind (mpivet explain KIND, docs/checks.md).
//
//go:embed *.md
var docFiles embed.FS

var checkDoc, kindDocs = check.Docs(docFiles, "program-failure")

// Check reports ranks that crashed, aborted, failed or quit MPI improperly.
var Check = &check.Check{
	Name:     "program-failure",
	Kinds:    []string{"program-failure", "truncation", "mpi-library-crash", "rank-killed"},
	Doc:      checkDoc,
	KindDocs: kindDocs,
	Requires: []*check.Check{waitstate.Analyzer},
	Run:      run,
}

// SignalName returns e.g. "SIGSEGV (segmentation fault)".
func SignalName(sig int) string {
	name := unix.SignalName(syscall.Signal(sig))
	if name == "" {
		name = fmt.Sprintf("signal %d", sig)
	}
	return fmt.Sprintf("%s (%s)", name, syscall.Signal(sig).String())
}

// teardown reports whether a signal is one launchers use to end a job.
func teardown(sig int) bool {
	switch syscall.Signal(sig) {
	case syscall.SIGTERM, syscall.SIGKILL, syscall.SIGINT, syscall.SIGHUP, syscall.SIGPIPE:
		return true
	}
	return false
}

func rankName(p *trace.Process) string {
	name := fmt.Sprintf("process %d on %s", p.Pid, p.Host)
	if p.Rank >= 0 {
		name = fmt.Sprintf("rank %d", p.Rank)
	}
	if !p.Initialized() {
		name += " (before MPI_Init)"
	}
	return name
}

// failed is how one process failed, before the check decides which
// failures are causes and which their consequences.
type failed struct {
	p      *trace.Process
	f      check.Finding
	prim   bool   // a cause, not a consequence
	strong bool   // an abort or a crash: what ends a job
	detail string // the stack and the rank's own words, after the rest of the message
}

func run(pass *check.Pass) (any, error) {
	var fs []failed
	var victims []int
	for _, p := range pass.In.Run.Procs {
		f, victim := how(pass, p)
		if victim && p.Rank >= 0 {
			victims = append(victims, p.Rank)
		}
		if f != nil {
			fs = append(fs, *f)
		}
	}
	victims = killedConsequences(fs, consequences(fs, victims))
	sort.Ints(victims)
	primaries := 0
	for _, f := range fs {
		if f.prim {
			primaries++
		}
	}
	if primaries == 0 && len(fs) > 0 {
		jobEnded(pass, fs)
		return nil, nil
	}
	for _, f := range fs {
		if !f.prim && primaries > 0 {
			continue // a consequence of a failure reported below
		}
		if f.prim && f.strong && pass.In.Stalled {
			if a := waitstate.Of(pass); a.IsDeadlocked() {
				waiting := a.Deadlocked
				f.f.Message += fmt.Sprintf("; %s %s then hung waiting for it, and mpivet stopped the run", check.Plural(len(waiting), "rank", "ranks"), check.RankList(waiting))
			}
		}
		if f.prim && len(victims) > 0 && f.f.Kind == "rank-killed" {
			f.f.Message += fmt.Sprintf("; the launcher then ended %s %s because of it", check.Plural(len(victims), "rank", "ranks"), check.RankList(victims))
		} else if f.prim && len(victims) > 0 {
			f.f.Message += fmt.Sprintf("; as a consequence, %s %s ended too", check.Plural(len(victims), "rank", "ranks"), check.RankList(victims))
		}
		if f.f.Ranks == nil && f.p.Rank >= 0 {
			f.f.Ranks = []int{f.p.Rank}
		}
		f.f.Message += f.detail
		pass.Report(f.f)
	}
	return nil, nil
}

// ending is what is known of how a process ended: its exit record, its
// last MPI call, and the calls that end a job.
type ending struct {
	pass     *check.Pass
	p        *trace.Process
	x        *trace.Exit
	last     *trace.Call
	lastText string       // "; last MPI call: ..."
	abort    *trace.Call  // its MPI_Abort, if it called it
	fatal    *trace.Error // an error MPI_ERRORS_ARE_FATAL ended it with
}

func newEnding(pass *check.Pass, p *trace.Process) *ending {
	e := &ending{pass: pass, p: p, x: p.Exit, last: p.Last()}
	if s := p.Signal; s != nil && s.ThreadNo > 0 { // the last call of the thread it interrupted
		for i, slot := range p.ThreadSlots {
			if slot == s.ThreadNo && i < len(p.Threads) {
				e.last = p.Threads[i]
			}
		}
	}
	if e.last != nil {
		e.lastText = fmt.Sprintf("; last MPI call: %s", check.Describe(p, e.last))
		if !e.last.Returned && !e.last.Def.Has("abort") {
			e.lastText += " (had not returned)"
		}
	}
	e.abort = p.AbortCall()
	for i, err := range p.Errors {
		if err.Fatal {
			e.fatal = &p.Errors[i]
		}
	}
	return e
}

// lastLoc is the location of the last MPI call, with a note.
func (e *ending) lastLoc(note string) []check.Location {
	if e.last == nil {
		return nil
	}
	l := e.pass.At(e.p, e.last)
	l.Note = note
	return []check.Location{l}
}

// how says how process p failed (nil: it did not, or mpivet ended it),
// and whether it was terminated from outside (a victim of another's
// failure, or of someone else).
func how(pass *check.Pass, p *trace.Process) (f *failed, victim bool) {
	e := newEnding(pass, p)
	x, last, in := e.x, e.last, pass.In
	switch {
	case x != nil && x.ExecError != "":
		return &failed{p, check.Finding{Ranks: []int{}, Message: "the program could not be started: " + x.ExecError}, true, false, ""}, false
	case e.fatal != nil:
		return e.fatalError(), false
	case e.abort != nil:
		l := pass.At(p, e.abort)
		l.Note = "MPI_Abort called here"
		cmsg, clocs, detail := caught(pass, p)
		if cmsg != "" {
			cmsg, detail = "; its signal handler had caught "+cmsg, detail+said(p)
		}
		return &failed{p, check.Finding{
			Message:   fmt.Sprintf("%s called MPI_Abort (errorcode %d, %s)%s", rankName(p), e.abort.Int("errorcode"), check.HandleName(p, e.abort.Word("comm")), cmsg),
			Locations: append(clocs, l),
		}, true, true, detail}, false
	case x != nil && x.Signal != 0 && !teardown(x.Signal) && x.Forwarded != x.Signal:
		return e.killed(), false
	case x != nil && x.Exited && x.Code != 0 && last != nil && !last.Returned:
		return e.endedInCall(), false
	case x != nil && x.Exited && x.Code != 0:
		after := ""
		if p.Finalized() {
			after = " after MPI_Finalize"
		}
		cmsg, clocs, stack := caught(pass, p)
		if cmsg != "" {
			cmsg = "; its signal handler had caught " + cmsg
		}
		return &failed{p: p, f: check.Finding{
			Message:   fmt.Sprintf("%s exited with status %d%s%s%s", rankName(p), x.Code, after, cmsg, e.lastText),
			Locations: append(append(clocs, raisedAt(p)...), e.lastLoc("last MPI call")...),
		}, prim: true, detail: stack + said(p)}, false
	case x != nil && x.Exited && p.Initialized() && !p.Finalized() && !p.Overflow: // (a full log ends before MPI_Finalize)
		return &failed{p, check.Finding{
			Message:   fmt.Sprintf("%s exited without calling MPI_Finalize%s", rankName(p), e.lastText),
			Locations: e.lastLoc("last MPI call"),
		}, true, false, ""}, false
	case x != nil && x.Exited && !p.Initialized():
		return &failed{p, check.Finding{
			Message: fmt.Sprintf("%s exited (status %d) without initialising MPI: nothing of it was checked", rankName(p), x.Code),
		}, true, false, ""}, false
	case in.TimedOut || in.Stalled || in.Interrupted:
		// ended by mpivet (time limit, deadlock, interrupt): those checks report it
		return nil, false
	case x != nil && x.Signal == int(syscall.SIGKILL) && !in.Ended:
		return e.killedOutside(), false
	case x == nil || x.Signal != 0:
		// terminated from outside: by the launcher after another rank
		// failed, or by someone else
		how := "was terminated from outside"
		if x != nil {
			how = "was terminated by " + SignalName(x.Signal)
		} else if p.Finalized() {
			return nil, true // finished; its supervisor was killed after the fact
		}
		return &failed{p, check.Finding{Message: fmt.Sprintf("%s %s%s", rankName(p), how, e.lastText), Locations: e.lastLoc("last MPI call")}, false, false, ""}, true
	}
	return nil, false
}

// fatalError: the layer's handler saw the error before
// MPI_ERRORS_ARE_FATAL ended the job.
func (e *ending) fatalError() *failed {
	p, fatal, last := e.p, e.fatal, e.last
	call := fatal.Call.Name
	if last != nil && last.Def == fatal.Call && !last.Returned {
		call = check.Describe(p, last)
	}
	msg := fmt.Sprintf("%s failed in %s with %s, and the MPI's default error handler (MPI_ERRORS_ARE_FATAL) ended the job",
		rankName(p), call, check.ErrorClass(p, fatal.Class))
	kind := ""
	if tr, ok := p.Const("MPI_ERR_TRUNCATE"); ok && int64(tr) == fatal.Class && receiving(fatal.Call) {
		kind = "truncation"
		msg = "a receive buffer was too small for the message that matched it: " + msg
	}
	if why := mpiSays(p.Stderr + "\n" + e.pass.In.LauncherOutput); why != "" {
		msg += "; it said:\n" + why
	}
	l := e.pass.AtSite(p, fatal.Call.Name, fatal.PC)
	l.Note = "the call that failed"
	return &failed{p, check.Finding{Kind: kind, Message: msg, Locations: []check.Location{l}}, true, true, ""}
}

// killed: a signal that is not a launcher's ended the process.
func (e *ending) killed() *failed {
	p, x := e.p, e.x
	s := p.Signal
	if s != nil && s.Number != x.Signal {
		s = nil // the layer saw another signal than the one that ended it
	}
	library := s != nil && s.LibraryThread() && p.FinalizeCall() != nil
	// another process sent the signal, or the one its handler caught
	outside := (s != nil && s.FromOutside(p.Pid)) || (p.Caught != nil && p.Caught.FromOutside(p.Pid))
	msg := fmt.Sprintf("%s was killed by %s", rankName(p), SignalName(x.Signal))
	var locs []check.Location
	stack := ""
	if (s == nil || s.Sent()) && p.Caught != nil && p.Caught != s {
		// its own handler caught a crash, then ended the rank (raised the
		// signal again, or abort()): the crash is the cause
		cmsg, clocs, cstack := caught(e.pass, p)
		msg += ", raised by its signal handler after it caught " + cmsg
		locs, stack, s = clocs, cstack, nil
	}
	if s != nil && e.pass.In.Sym != nil {
		var where string
		locs, where, stack = crashSite(e.pass.In.Sym, p, s)
		msg += where
		switch {
		case s.FromOutside(p.Pid):
			msg += fmt.Sprintf(" (sent from outside the program, by process %d)", s.Addr)
		case s.Thread&api.SignalSent != 0:
			msg += " (sent by kill or raise)"
		case s.Number == int(syscall.SIGSEGV) || s.Number == int(syscall.SIGBUS):
			msg += fmt.Sprintf(" (address %#x)", s.Addr)
		}
		if !s.Unwound() {
			stack += "\n(its callers are unknown: unwinding the stack faulted too)"
		}
	}
	if library {
		msg += ", in a thread of the MPI library (one it created, which never called MPI), while the program's MPI_Finalize ran"
	}
	locs = append(locs, e.lastLoc("last MPI call")...)
	f := &failed{p: p, f: check.Finding{Message: msg + e.lastText, Locations: locs}, prim: true, strong: true, detail: stack + said(p)}
	if outside { // not the program's fault
		f.f.Kind, f.f.Severity = "rank-killed", check.Warning
	}
	if library {
		f.f.Kind, f.f.Severity = "mpi-library-crash", check.Warning
		f.f.Message += "; a failure of the MPI library, not of the program"
	}
	return f
}

// killedOutside: SIGKILL ended the process while its supervisor lived,
// and mpivet had not stopped the run. Neither a fault nor the program's
// MPI sends it (the launchers end a job through the supervisors): someone
// outside the program did, the kernel's OOM killer most often. Not the
// program's error: a warning, and the verification is incomplete
// (driver's killedCut).
func (e *ending) killedOutside() *failed {
	msg := fmt.Sprintf("%s was killed by %s from outside the program: no fault of a program raises it, "+
		"and neither the MPI nor its launcher sent it to this rank", rankName(e.p), SignalName(e.x.Signal))
	if n := e.pass.In.OOMKills; n > 0 {
		msg += fmt.Sprintf("; the kernel's OOM killer ended %s on this machine during the run (/proc/vmstat oom_kill): "+
			"running out of memory is the likely cause", fmt.Sprintf("%d %s", n, check.Plural(int(n), "process", "processes")))
	} else {
		msg += " (the kernel's OOM killer, a user's kill -9, a batch system's limit)"
	}
	f := check.Finding{Kind: "rank-killed", Severity: check.Warning, Message: msg + e.lastText, Locations: e.lastLoc("last MPI call")}
	return &failed{p: e.p, f: f, prim: true, strong: true, detail: said(e.p)}
}

// endedInCall: the process exited from inside an MPI call, so the MPI's
// error handler ended it (Open MPI's does so with the error code).
func (e *ending) endedInCall() *failed {
	p, x, last := e.p, e.x, e.last
	msg := fmt.Sprintf("the MPI library ended %s inside %s (exit status %d)", rankName(p), check.Describe(p, last), x.Code)
	kind := ""
	said := p.Stderr + "\n" + e.pass.In.LauncherOutput
	if why := mpiSays(said); why != "" {
		msg += "; it said:\n" + why
	}
	// Open MPI's fatal error handler exits with the error code.
	code, _ := p.Const("MPI_ERR_TRUNCATE")
	if receives(last) && (truncated.MatchString(said) || int64(x.Code) == int64(code)) {
		kind = "truncation"
		msg = "a receive buffer was too small for the message that matched it: " + msg
	}
	return &failed{p, check.Finding{Kind: kind, Message: msg, Locations: e.lastLoc("the call the MPI failed in")}, true, false, ""}
}

// consequences marks as such the failures an abort or a crash caused: it
// ends the whole job, so a rank that then exits on its own (an MPI
// noticing its peer is gone may exit non-zero) is a consequence, unless
// it ended clearly before. It returns the victims with them.
func consequences(fs []failed, victims []int) []int {
	first, strong := int64(0), false
	for _, f := range fs {
		strong = strong || f.strong
		if f.strong && f.p.Exit != nil && (first == 0 || f.p.Exit.TimeNs < first) {
			first = f.p.Exit.TimeNs
		}
	}
	for i, f := range fs {
		if !f.prim || f.strong || f.p.Exit == nil {
			continue
		}
		if strong && (first == 0 || f.p.Exit.TimeNs == 0 || f.p.Exit.TimeNs >= first-int64(time.Second)) {
			fs[i].prim = false
			if f.p.Rank >= 0 {
				victims = append(victims, f.p.Rank)
			}
		}
	}
	return victims
}

// killedConsequences: a rank killed by SIGKILL while another failed by
// itself (an abort, a crash, a fatal error) was killed by the launcher
// ending the job (MPI_Abort's teardown kills the ranks), not from outside:
// one of its victims. It returns the victims with them.
func killedConsequences(fs []failed, victims []int) []int {
	other := false
	for _, f := range fs {
		other = other || (f.prim && f.f.Kind != "rank-killed")
	}
	for i, f := range fs {
		if other && f.prim && f.f.Kind == "rank-killed" {
			fs[i].prim = false
			if f.p.Rank >= 0 {
				victims = append(victims, f.p.Rank)
			}
		}
	}
	return victims
}

// jobEnded reports a job that nobody failed by itself, yet whose ranks
// were ended from outside: the MPI library (an error it detected, with
// errors fatal) or the launcher ended it. Its own words say why.
func jobEnded(pass *check.Pass, fs []failed) {
	var locs []check.Location
	var ranks []int
	for _, f := range fs {
		locs = append(locs, f.f.Locations...)
		if f.p.Rank >= 0 {
			ranks = append(ranks, f.p.Rank)
		}
	}
	for i := range locs {
		locs[i].Note = "in this call when the job was ended"
	}
	msg := "the job was ended by the MPI library or the launcher, not by the program"
	said := pass.In.LauncherOutput
	for _, f := range fs {
		said = f.p.Stderr + "\n" + said
	}
	why := mpiSays(said)
	if why != "" {
		msg += "; it said:\n" + why
	}
	kind := ""
	inReceive := false
	for _, f := range fs {
		inReceive = inReceive || receives(f.p.Last())
	}
	if inReceive && truncated.MatchString(said) {
		// Open MPI: MPI_ERR_TRUNCATE; MPICH: "Message truncated".
		kind = "truncation"
		msg = "a receive buffer was too small for the message that matched it, and the MPI ended the job: " + msg
	}
	pass.Report(check.Finding{Kind: kind, Ranks: ranks, Message: msg, Locations: locs})
}

// receives reports whether a call takes in point-to-point data: only there
// is a truncated message a receive buffer the program sized (inside a
// collective it is the MPI's own traffic, e.g. after mismatched collectives).
func receives(c *trace.Call) bool { return c != nil && receiving(c.Def) }

func receiving(d *api.Call) bool { return !d.Has("coll") && (d.Has("recv") || d.Has("completion")) }

var truncated = regexp.MustCompile(`(?i)MPI_ERR_TRUNCATE|message truncated`)

var errLine = regexp.MustCompile(`(?i)fatal|error|abort|signal|killed|failed|truncat`)

// mpiSays picks the lines of the launcher's output that explain an error.
func mpiSays(out string) string {
	var lines []string
	seen := map[string]bool{} // a rank's words reach mpivet and the launcher alike
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && errLine.MatchString(l) && !strings.HasPrefix(l, "---") && !seen[l] {
			seen[l] = true
			lines = append(lines, l)
		}
		if len(lines) == 6 {
			break
		}
	}
	return strings.Join(lines, "\n")
}

// crashSite symbolizes a crash: the interrupted instruction and its callers.
// The finding is located at the innermost frame with a source line (a crash
// inside a library without debug information, abort() called by assert, is
// placed at the program's line that called it), its callers with source
// lines follow, and the whole stack is listed in the message.
func crashSite(sym *symbolize.Symbolizer, p *trace.Process, s *trace.Signal) (locs []check.Location, where, stack string) {
	frames := []symbolize.Location{sym.LookupExact(p.Maps, s.PC)}
	for _, pc := range s.Callers {
		frames = append(frames, sym.Lookup(p.Maps, pc))
	}
	var names []string
	for _, f := range frames {
		if f.File == "" && f.Function == "" && f.Module == "" {
			break
		}
		names = append(names, f.String())
		// The layer's wrapper between the program and the MPI is not
		// where the program went wrong: its caller is.
		inLayer := filepath.Base(f.Module) == "libmpivet.so"
		if f.File != "" && !inLayer && len(locs) < 4 {
			note := "called from here"
			if len(locs) == 0 {
				note = "crashed here"
				where = " at " + f.String()
				if f != frames[0] {
					where = fmt.Sprintf(" in %s, called at %s", frames[0].String(), f.String())
				}
			}
			l := check.Location{Rank: p.Rank, Note: note}
			l.SetSource(f)
			locs = append(locs, l)
		}
		if f.Function == "main" || f.Function == "MAIN__" || len(names) == 12 {
			break // the rest is the C runtime
		}
	}
	if where == "" && len(names) > 0 {
		where = " in " + names[0]
		if frames[0].Module != "" {
			// no line anywhere (a stripped binary): the module and offset
			// still say where, for addr2line
			l := check.Location{Rank: p.Rank, Note: "crashed here"}
			l.SetSource(frames[0])
			locs = append(locs, l)
		}
	}
	if len(names) > 1 {
		stack = "\nstack: " + strings.Join(names, " <- ")
	}
	return locs, where, stack
}

// caught describes the crash signal that a handler in p caught (the
// program's, its libraries', the MPI's: the layer handed it over,
// trace.Process.Caught), the cause of what followed:
// its name, where and the address ("SIGSEGV (segmentation fault) at
// x.c:12 in f (address 0)"), its locations and stack. Empty if none.
func caught(pass *check.Pass, p *trace.Process) (msg string, locs []check.Location, stack string) {
	c := p.Caught
	if c == nil {
		return "", nil, ""
	}
	where := ""
	if pass.In.Sym != nil {
		locs, where, stack = crashSite(pass.In.Sym, p, c)
	}
	msg = SignalName(c.Number) + where
	if c.FromOutside(p.Pid) {
		msg += fmt.Sprintf(" (sent from outside the program, by process %d)", c.Addr)
	}
	if !c.Sent() && (c.Number == int(syscall.SIGSEGV) || c.Number == int(syscall.SIGBUS)) {
		msg += fmt.Sprintf(" (address %#x)", c.Addr)
	}
	return msg, locs, stack
}

// signalLine picks the lines of a rank's standard error that speak of a
// signal (a handler's "Caught signal number 11 SEGV", a runtime's
// "Program received signal SIGSEGV").
var signalLine = regexp.MustCompile(`(?i)\bsignal\b|\bSIG(SEGV|BUS|FPE|ILL|ABRT|TRAP)\b|segmentation (fault|violation)|bus error|floating[- ]point exception`)

// Hung says what a rank that mpivet stopped (time limit, deadlock) had
// caught or said about a signal before it hung: a handler of the
// program's own that caught a crash and never returned, or an MPI_Abort
// that blocked. Empty, and no location, if nothing: the timeout and
// deadlock findings add it to the rank's line.
func Hung(pass *check.Pass, p *trace.Process) (string, []check.Location) {
	msg, locs, _ := caught(pass, p)
	for i := range locs {
		if locs[i].Note == "crashed here" {
			locs[i].Note = "the signal its handler caught"
		}
	}
	if msg == "" && !signalLine.MatchString(p.Stderr) {
		return "", nil
	}
	words := said(p)
	if msg == "" {
		words = ""
		for _, l := range strings.Split(p.Stderr, "\n") {
			if l = strings.TrimSpace(l); signalLine.MatchString(l) && !strings.Contains(words, l) {
				words += "\n  " + l
			}
		}
		words = "\nits lines on standard error about a signal:" + words
	}
	if msg != "" {
		msg = "; its signal handler had caught " + msg
	}
	return msg + strings.ReplaceAll(words, "\n", "\n  "), locs
}

// said quotes the last lines the rank wrote on its standard error: an
// assert's text, the message printed before abort() or exit(1). The MPI's
// own report of a crash (Open MPI and UCX prefix their lines with
// [host:pid) is left out; the program's words are what explain it.
func said(p *trace.Process) string {
	const max = 6
	own := fmt.Sprintf(":%d]", p.Pid)
	own2 := fmt.Sprintf(":%d:", p.Pid)
	own3 := fmt.Sprintf(":%05d]", p.Pid) // Open MPI pads a pid below 10000: [host:04870]
	var lines []string
	for _, l := range strings.Split(p.Stderr, "\n") {
		l = strings.TrimRight(l, "\r ")
		if strings.TrimSpace(l) == "" {
			continue
		}
		if strings.HasPrefix(l, "[") {
			if i := strings.IndexByte(l, ']'); i > 0 && (strings.Contains(l[:i+1], own) || strings.Contains(l[:i+1], own2) || strings.Contains(l[:i+1], own3)) {
				continue
			}
		}
		lines = append(lines, l)
	}
	if len(lines) == 0 {
		return ""
	}
	if len(lines) > max {
		lines = lines[len(lines)-max:]
	}
	return "\nits last lines on standard error:\n  " + strings.Join(lines, "\n  ")
}
