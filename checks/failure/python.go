package failure

import (
	"regexp"
	"strconv"
	"strings"

	"mpivet/check"
	"mpivet/trace"
)

// tracebackFrame is a frame line of a Python traceback.
var tracebackFrame = regexp.MustCompile(`^\s*File "([^"]+)", line (\d+), in (\S+)`)

// raisedAt locates an uncaught Python exception that ended a rank: the
// innermost frame of the last traceback the interpreter printed on the
// rank's standard error (a Python rank that raises exits with status 1,
// after mpi4py finalized MPI at exit: its last MPI call says nothing).
func raisedAt(p *trace.Process) []check.Location {
	i := strings.LastIndex(p.Stderr, "Traceback (most recent call last):")
	if i < 0 {
		return nil
	}
	var last []string
	for _, l := range strings.Split(p.Stderr[i:], "\n")[1:] {
		if m := tracebackFrame.FindStringSubmatch(l); m != nil {
			last = m
		} else if l != "" && !strings.HasPrefix(l, " ") {
			break // the exception's own line ends the traceback
		}
	}
	if last == nil {
		return nil
	}
	line, _ := strconv.Atoi(last[2])
	l := check.Location{Rank: p.Rank, File: last[1], Line: line, Function: last[3], Note: "the exception was raised here"}
	if strings.HasPrefix(last[1], "/") {
		l.Path = last[1]
	}
	return []check.Location{l}
}
