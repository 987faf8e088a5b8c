package zerobuf

// Minimal slack enumeration (seed 001, §4) and the messages of a run, on
// the whole-run zero-buffering model (package whole: see its comments for
// the method and for what the model costs). The check itself (Analyzer)
// co-simulates the ranks as it reads them and keeps little; these need
// every operation of the run at once, to run the model again and again
// from its start or to list every match, so they build it only when asked.

import (
	"mpivet/check"
	"mpivet/checks/zerobuf/internal/whole"
	"mpivet/trace"
)

// Slack answers, for the matched wildcard receives of one run, which sends
// must be buffered for another source to match them.
type Slack = whole.Slack

// Send is a send Slack names: which rank made it, its number among the
// rank's standard-mode sends (what a buffering decision names), where it
// goes and its call.
type Send = whole.Send

// Need is what it takes for a wildcard receive to match a source.
type Need = whole.Need

// NewSlack builds the model of the run of u. buffered says which standard
// sends the layer buffered in that run (by rank, their numbers), all that
// it buffered them all (--buffering=infinite). nil if the records do not
// describe the run well enough. It reads every rank's calls once and keeps
// an operation per message and collective of the run (see package whole).
func NewSlack(u *check.Unit, buffered map[int]map[uint64]bool, all bool) *Slack {
	return whole.NewSlack(u.In.Run, buffered, all)
}

// Pair is a message of a run: the call that sent it and the call that
// received it (for a nonblocking receive, the call that started it), by
// world rank.
type Pair = whole.Pair

// Messages pairs the sends and receives of a run as the MPI matched them,
// for the space-time diagram of the report. It also pairs what a run that
// did not end left (a receive still blocked is not paired), and returns
// nil, with why, where the records cannot tell (see Result.Why). Its
// memory grows with the messages of the run.
func Messages(run *trace.Run) ([]Pair, string) { return whole.Messages(run) }
