package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"mpivet/check"
	"mpivet/explore"
)

// progress shows how an exploration goes. On a terminal it is a bar
// (github.com/schollz/progressbar: a maintained library that redraws one
// line and clears it at the end, instead of escape codes written here) over
// the interleavings known so far; on a pipe, as in CI logs, a plain line
// every plainEvery (the first after plainFirst), so that a long exploration
// is visibly alive without flooding the log.
type progress struct {
	f    *os.File
	w    io.Writer
	bar  *progressbar.ProgressBar // nil when not a terminal
	last time.Time                // of the last plain line (zero: nothing shown yet)
}

const (
	plainFirst = 2 * time.Second
	plainEvery = 10 * time.Second
)

func newProgress(f *os.File) *progress { return &progress{f: f, w: f} }

// begin sets the bar up when the exploration starts.
func (p *progress) begin() {
	p.last = time.Now().Add(plainFirst - plainEvery)
	f := p.f
	if term.IsTerminal(int(f.Fd())) {
		p.bar = progressbar.NewOptions(-1,
			progressbar.OptionSetWriter(f),
			progressbar.OptionSetDescription("mpivet: exploring"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetPredictTime(false), // the replays known are not the replays to run
			progressbar.OptionClearOnFinish(),
			progressbar.OptionSetWidth(20),
			progressbar.OptionThrottle(200*time.Millisecond),
		)
	}
}

// line describes the state in words, with an estimate of the time left for
// the alternatives known now (more may be found on the way).
func line(pr explore.Progress) string {
	msg := fmt.Sprintf("%d %s done, %d queued, %d running", pr.Done,
		check.Plural(pr.Done, "interleaving", "interleavings"), pr.Frontier, pr.Running)
	for _, x := range []struct {
		n    int
		what string
	}{{pr.Infeasible, "infeasible"}, {pr.Diverged, "diverged"}, {pr.TimedOut, "timed out"}} {
		if x.n > 0 {
			msg += fmt.Sprintf(", %d %s", x.n, x.what)
		}
	}
	msg += fmt.Sprintf(", %s elapsed", pr.Elapsed.Round(time.Second))
	// No estimate of the time left from the replays known: more are found
	// on the way, and fewer run (equivalent completion orders), so it
	// would be neither a bound nor an estimate. The budget is a bound.
	if pr.Budget > 0 {
		left := max(0, pr.Budget-pr.Elapsed)
		msg += fmt.Sprintf(", at most %s left (budget)", left.Round(time.Second))
	}
	return msg
}

// Show shows pr (driver.Progress).
func (p *progress) Show(pr explore.Progress) {
	if p.last.IsZero() {
		p.begin()
	}
	if p.bar != nil {
		p.bar.ChangeMax(pr.Done + pr.Frontier + pr.Running)
		p.bar.Describe(fmt.Sprintf("mpivet: exploring (%d queued, %d running%s)", pr.Frontier, pr.Running, trouble(pr)))
		p.bar.Set(pr.Done)
		return
	}
	if time.Since(p.last) >= plainEvery {
		fmt.Fprintln(p.w, "mpivet: exploring: "+line(pr))
		p.last = time.Now()
	}
}

// trouble lists the replays that gave no checkable run, for the bar.
func trouble(pr explore.Progress) string {
	s := ""
	if pr.Infeasible > 0 {
		s += fmt.Sprintf(", %d infeasible", pr.Infeasible)
	}
	if pr.Diverged > 0 {
		s += fmt.Sprintf(", %d diverged", pr.Diverged)
	}
	if pr.TimedOut > 0 {
		s += fmt.Sprintf(", %d timed out", pr.TimedOut)
	}
	return s
}

// Done clears the bar.
func (p *progress) Done() {
	if p.bar != nil {
		p.bar.Finish()
	}
}
