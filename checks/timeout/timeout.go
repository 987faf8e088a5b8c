// Package timeout defines the timeout check.
package timeout

import (
	"embed"
	"fmt"
	"strings"

	"mpivet/check"
	"mpivet/checks/failure"
	"mpivet/checks/internal/waitstate"
)

// The check's documentation: timeout.md is its Doc, and every other
// KIND.md explains a kind (mpivet explain KIND, docs/checks.md).
//
//go:embed *.md
var docFiles embed.FS

var checkDoc, kindDocs = check.Docs(docFiles, "timeout")

// Check reports a run that mpivet stopped at its time limit, with what every
// rank was doing.
var Check = &check.Check{
	Name:     "timeout",
	Doc:      checkDoc,
	KindDocs: kindDocs,
	Requires: []*check.Check{waitstate.Analyzer},
	Run:      run,
}

func run(pass *check.Pass) (any, error) {
	in := pass.In
	if !in.TimedOut || in.Interrupted || waitstate.Of(pass).IsDeadlocked() {
		return nil, nil // no timeout, or the deadlock check explains it
	}
	var lines []string
	var locs []check.Location
	var ranks []int
	for _, p := range in.Run.Procs {
		if p.Rank < 0 {
			continue
		}
		last := p.Last()
		switch {
		case last == nil:
			lines = append(lines, fmt.Sprintf("rank %d: had not called MPI yet", p.Rank))
			ranks = append(ranks, p.Rank)
		case p.Finalized():
			lines = append(lines, fmt.Sprintf("rank %d: finished (returned from MPI_Finalize)", p.Rank))
		case !last.Returned:
			l := pass.At(p, last)
			l.Note = "blocked here"
			locs = append(locs, l)
			ranks = append(ranks, p.Rank)
			lines = append(lines, fmt.Sprintf("rank %d: blocked in %s at %s", p.Rank, check.Describe(p, last), l.Where()))
		default:
			l := pass.At(p, last)
			l.Note = "last MPI call; computing since"
			locs = append(locs, l)
			ranks = append(ranks, p.Rank)
			lines = append(lines, fmt.Sprintf("rank %d: computing outside MPI; last MPI call %s at %s", p.Rank, check.Describe(p, last), l.Where()))
		}
		if !p.Finalized() {
			// what it caught or said about a signal before it hung
			said, saidAt := failure.Hung(pass, p)
			lines[len(lines)-1] += said
			locs = append(locs, saidAt...)
		}
		// Other threads of the rank that are inside MPI.
		for i, c := range p.Threads {
			if i == 0 || c.Returned {
				continue
			}
			l := pass.At(p, c)
			name := p.SlotThreadName(p.ThreadSlots[i])
			l.Note = name + " blocked here"
			locs = append(locs, l)
			lines = append(lines, fmt.Sprintf("rank %d, %s: blocked in %s at %s", p.Rank, name, check.Describe(p, c), l.Where()))
		}
	}
	pass.Report(check.Finding{
		Ranks:     ranks,
		Message:   fmt.Sprintf("the run did not finish within %s:\n%s", in.Timeout, strings.Join(lines, "\n")),
		Locations: locs,
	})
	return nil, nil
}
