package driver

import (
	"fmt"
	"strings"

	"mpivet/check"
	"mpivet/checks/zerobuf"
	"mpivet/explore"
	"mpivet/launch"
	"mpivet/trace"
)

// The buffering-aware exploration (--slack=minimal, seed 001's minimal
// slack): package explore asks zerobuf.Slack (il.Slack) which sends a
// potential match needs buffered, and replays it with those buffered by
// mpivet (layer/src/slack). What the driver adds is in the report: which
// sends were buffered for a finding, and how many interleavings ran so.

// slackFindings annotates the findings kept of interleaving n (keep): an
// unsafe-buffering deadlock of a run the MPI buffered is explored past
// (il.Unbuffered: the sends it waits for, which the exploration buffers),
// and a deadlock found where mpivet buffered nothing (plain) names the
// sends the run's own matches needed the MPI to buffer.
func (x *exploration) slackFindings(n int, u *check.Unit, res *launch.Result, il *explore.Interleaving, plain bool, keep []check.Finding) {
	var needed []string // what the run's own matches needed buffered
	for i, f := range keep {
		if f.Kind == "unsafe-buffering" && n != x.zero && res.Deadlocked && x.slack {
			il.Unbuffered = zerobuf.BlockedSends(u) // explored past, buffered
		}
		if f.Kind == "deadlock" && plain && n != x.zero {
			if needed == nil {
				needed = []string{}
				for _, b := range zerobuf.NeededSlack(u, il.Decisions, x.o.Buffering == "infinite") {
					needed = append(needed, explore.SlackNote(b, x.where))
				}
			}
			if len(needed) > 0 {
				keep[i].Message += "\nfound when " + strings.Join(needed, "; and when ") + " (the MPI buffered it in this run)"
			}
		}
	}
}

// slackNote says which sends mpivet buffered in interleaving n, and which
// match that made possible, oldest first ("" if none).
func (x *exploration) slackNote(n int) string {
	var notes []string
	for b := x.branches[n]; b != nil; b = x.branches[b.From] {
		if note := explore.SlackNote(b, x.where); note != "" {
			notes = append([]string{note}, notes...)
		}
	}
	return strings.Join(notes, "; and when ")
}

// where places a call site as file:line (or as the symbolizer can).
func (x *exploration) where(maps []trace.Mapping, pc uint64) string {
	l := x.sym.Lookup(maps, pc)
	if l.File != "" && l.Line > 0 {
		return fmt.Sprintf("%s:%d", l.File, l.Line)
	}
	return l.String()
}

// slackNote says what the buffering-aware exploration did.
func slackNote(st explore.Stats) string {
	var s []string
	if st.Buffered > 0 {
		s = append(s, fmt.Sprintf("%d %s run with standard-mode sends buffered by mpivet",
			st.Buffered, check.Plural(st.Buffered, "interleaving was", "interleavings were")))
	}
	if st.RuledOut > 0 {
		s = append(s, fmt.Sprintf("%d potential %s the clocks offered cannot happen under any buffering (the send comes after the receive "+
			"through a receive, a synchronous send or a collective) and %s not run", st.RuledOut,
			check.Plural(st.RuledOut, "match", "matches"), check.Plural(st.RuledOut, "was", "were")))
	}
	return strings.Join(s, "; ")
}
