package driver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"mpivet/api"
	"mpivet/check"
	"mpivet/explore"
	"mpivet/filestate"
	"mpivet/report"
	"mpivet/rundir"
	"mpivet/trace"
)

// ReplayOptions say which interleaving of which earlier run to run again.
// The program and its settings come from the run's command record.
type ReplayOptions struct {
	Dir          string // the run directory of the earlier run
	Interleaving int
	GDB          int    // this rank waits for a debugger after MPI_Init (-1: none)
	Suppressions string // as Options.Suppressions (a replay takes not the run's)
	Program      string // the program, where it is not at the recorded path (a witness replayed elsewhere: the same binary)
	IO
}

// Replay runs interleaving n of the run in dir again, exactly: every
// wildcard event of it is forced to match as it did, and the run is
// checked (not explored). Its records go in a new directory below dir.
func Replay(ctx context.Context, r ReplayOptions) (*report.Report, error) {
	o := Defaults()
	if err := loadCommand(r.Dir, &o); err != nil {
		return nil, err
	}
	if err := rundir.Check(r.Dir); err != nil { // the replay writes in it
		return nil, err
	}
	lock, err := rundir.Acquire(r.Dir)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	if err := checkWitness(r.Dir, &o, r.Program); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(r.Dir, witnessFile)); err != nil {
		if err := checkRecordedBinary(r.Dir, o.Program, r.Notify); err != nil {
			return nil, err
		}
	}
	n := r.Interleaving
	src := interleavingDir(r.Dir, n)
	ds, err := replayDecisions(r.Dir, n, o.NP)
	if err != nil {
		return nil, err
	}
	if _, err := loadSuppressions(r.Suppressions); err != nil {
		return nil, err // before anything is created
	}
	out := filepath.Join(r.Dir, fmt.Sprintf("replay-%d-%s", n, time.Now().Format("150405")))
	o.IO, o.GDB, o.Suppressions = r.IO, r.GDB, r.Suppressions
	if o.Deterministic {
		// The mode makes the same matches and completions again by itself:
		// nothing is forced (forcing needs the clock protocol, which it
		// turns off); a replay is one checked run.
		ds = []explore.Decision{}
	} else if o.Clocks == "off" {
		o.Clocks = "lamport" // decisions need the protocol
	}
	if b, err := os.ReadFile(filepath.Join(src, bufferingFile)); err == nil {
		o.Buffering = strings.TrimSpace(string(b)) // the zero-buffering run
	}
	if r.GDB >= 0 {
		o.Buffers, o.Timeout = "off", 0 // the trap flag and a debugger do not mix; a person takes time
	}
	if r.GDB >= o.NP { // (the user's flag, not the record's)
		return nil, fmt.Errorf("--gdb %d: no such rank (the run's ranks are 0 to %d)", r.GDB, o.NP-1)
	}
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("%s/%s: %v", r.Dir, commandFile, err)
	}
	if r.Notify != nil {
		nb := len(explore.Buffers(ds))
		slack := ""
		if nb > 0 {
			slack = fmt.Sprintf(", %d %s buffered by mpivet", nb, check.Plural(nb, "send", "sends"))
		}
		if o.Deterministic {
			r.Notify(fmt.Sprintf("replaying interleaving %d of %s deterministically (seed %d) in %s", n, r.Dir, o.Seed, out))
		} else {
			r.Notify(fmt.Sprintf("replaying interleaving %d of %s (%d forced %s%s) in %s", n, r.Dir, len(ds)-nb,
				check.Plural(len(ds)-nb, "match", "matches"), slack, out))
		}
	}
	if err := rundir.Mkdir(out); err != nil { // (once every input is checked)
		return nil, err
	}
	if err := restoreBefore(r, o); err != nil {
		return nil, err
	}
	return verify(ctx, o, out, ds)
}

// restoreBefore brings the files the run in r.Dir touched back to their
// state before it, so that the replay starts where that run's
// interleavings started (files.go). The replay then leaves them as it
// ran them, as one run of the program does.
func restoreBefore(r ReplayOptions, o Options) error {
	s := filestate.Open(filepath.Join(r.Dir, filesDir))
	if s == nil || o.Files == "off" {
		return nil
	}
	res, err := s.Restore()
	if err != nil {
		return err
	}
	if r.Notify != nil && len(res.Changed) > 0 {
		r.Notify(fmt.Sprintf("files put back as they were before the run: %s", firstFew(res.Changed)))
	}
	return nil
}

// replayDecisions are the decisions that force interleaving n of the run
// in dir to happen again: from its records, or from those kept when its
// records were deleted (a replay without findings) or never made (a
// witness). Damaged records or decisions, or kept decisions that the
// records contradict, are refused (trace.DamageError): replaying them
// would force another interleaving than the one asked for.
func replayDecisions(dir string, n, np int) ([]explore.Decision, error) {
	src := interleavingDir(dir, n)
	complete := filepath.Join(src, completeFile)
	kept, kerr := explore.ReadDecisions(complete)
	if kerr != nil && !errors.Is(kerr, fs.ErrNotExist) {
		return nil, kerr
	}
	run, err := trace.ReadRun(src)
	var ds []explore.Decision
	switch {
	case err != nil:
		return nil, err
	case len(run.Procs) > 0:
		for _, p := range run.Procs {
			if p.Size > 0 && p.Size != np {
				return nil, fmt.Errorf("%s: np is %d, but the records of interleaving %d are of %d ranks (the size of MPI_COMM_WORLD): "+
					"a replay runs the ranks of the run", filepath.Join(dir, commandFile), np, n, p.Size)
			}
		}
		ds = explore.Complete(run)
		if kerr == nil {
			if err := explore.CheckDecisions(complete, kept, ds); err != nil {
				return nil, err
			}
		}
	case kerr == nil:
		// (records of a replay without findings are deleted, its decisions kept)
		ds = kept
	default:
		return nil, fmt.Errorf("no interleaving %d in %s", n, dir)
	}
	given, err := explore.ReadDecisions(filepath.Join(src, decisionsFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	ds = append(ds, explore.Buffers(given)...) // the sends mpivet buffered
	ds = append(ds, explore.Holds(given)...)   // the receives it held back
	for _, d := range ds {
		if d.Rank >= np {
			return nil, fmt.Errorf("%s: np is %d, but interleaving %d forces a match of rank %d: a replay runs the ranks of the run",
				filepath.Join(dir, commandFile), np, n, d.Rank)
		}
	}
	if ds == nil {
		ds = []explore.Decision{}
	}
	return ds, nil
}

// divergence describes how replay n stopped following the run it comes
// from, or returns "" if it did not.
func (x *exploration) divergence(n int, b *explore.Branch, r *trace.Run) (string, *explore.Divergence) {
	if b == nil || r == nil {
		return "", nil
	}
	for _, p := range r.Procs {
		d := p.Diverged
		if d == nil {
			continue
		}
		name := func(c *api.Call) string {
			if c == nil {
				return "an unknown call"
			}
			return c.Name
		}
		got := name(d.Got)
		if l := x.sym.Lookup(p.Maps, d.GotPC); l.File != "" || l.Function != "" {
			got += " at " + l.String()
		}
		want := name(d.Want)
		at := &explore.Divergence{Rank: p.Rank, Offset: d.ParentOffset, Where: fmt.Sprintf("rank %d's %s", p.Rank, want)}
		for _, e := range b.Expect {
			if e.Rank != p.Rank {
				continue
			}
			if parent, err := trace.ReadLog(e.Log); err == nil {
				l := x.sym.Lookup(parent.Maps, d.WantPC)
				if l.File != "" || l.Function != "" {
					want += " at " + l.String()
				}
				if w := x.where(parent.Maps, d.WantPC); w != "" {
					at.Where = fmt.Sprintf("%s, rank %d's %s", w, p.Rank, name(d.Want))
				}
			}
		}
		who := fmt.Sprintf("rank %d", p.Rank)
		if id := p.ThreadOf(d.Thread); id != 0 {
			who += ", " + p.ThreadName(id)
		}
		return fmt.Sprintf("interleaving %d, %s, at its call %d (of those compared): interleaving %d made %s, the replay %s",
			n, who, d.Index, b.From, want, got), at
	}
	return "", nil
}

// steps describes how interleaving n differs from the first: the chain of
// forced matches that leads to it, oldest first.
func (x *exploration) steps(n int) []string {
	var out []string
	for b := x.branches[n]; b != nil; b = x.branches[b.From] {
		where := ""
		if l := x.sym.Lookup(b.Maps, b.PC); l.File != "" || l.Function != "" {
			where = " at " + l.String()
		}
		event := b.EventName
		if event == "" {
			event = trace.EventName(b.Event)
		}
		step := fmt.Sprintf("rank %d: wildcard %s%s matched rank %s instead of rank %s",
			b.Rank, event, where, rankName(b.Forced), rankName(b.Was))
		if b.Kind == trace.WildAny {
			name := "a Waitany-family call"
			if b.Call != "" {
				name = b.Call
			}
			step = fmt.Sprintf("rank %d: %s, %s%s, returned request [%d] first instead of [%d]",
				b.Rank, event, name, where, b.Forced.Source, b.Was.Source)
		}
		if b.Kind == explore.HoldKind && len(b.Forced.Hold) == 1 {
			step = fmt.Sprintf("rank %d: %s held back until %s matched, which took rank %s's earlier message instead",
				b.Rank, explore.PositionName(b.Forced.Hold[0]), explore.PositionName(b.Event), rankName(b.Forced))
		}
		if note := explore.SlackNote(b, x.where); b.Kind == explore.BufferKind {
			step = fmt.Sprintf("interleaving %d again, past its deadlock for want of buffering: %s by mpivet", b.From, note)
		} else if note != "" {
			step += ", when " + note
		}
		out = append([]string{step}, out...)
	}
	return out
}

func rankName(a explore.Alt) string {
	if a.World >= 0 {
		return strconv.Itoa(a.World)
	}
	return fmt.Sprintf("%d of its communicator", a.Source)
}
