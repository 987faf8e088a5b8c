package driver

import (
	"fmt"
	"strings"

	"mpivet/check"
	"mpivet/trace"
)

// A deterministic run (--deterministic, layer/src/determinism) is one
// checked run with no exploration: its wildcard matches and the outcomes of
// its polls follow from logical times, so the same input gives the same run.
// Exploring its alternatives would mean forcing other matches, which is what
// determinism rules out; the clock protocol is therefore off.

// determinismNote says what deterministic mode did in run r: the seed
// that reproduces it, the decisions taken, and whether determinism had to
// be relaxed (a deterministic deadlock) or some calls were left to the MPI.
func determinismNote(r *trace.Run, seed uint64) string {
	var d trace.Determinism
	ranks := 0
	for _, p := range r.Procs {
		if p.Determinism == nil {
			continue
		}
		ranks++
		d.K = p.Determinism.K
		d.Wildcards += p.Determinism.Wildcards
		d.Polls += p.Determinism.Polls
		d.Relaxed += p.Determinism.Relaxed
		d.Control += p.Determinism.Control
		d.Uncovered += p.Determinism.Uncovered
	}
	var b strings.Builder
	fmt.Fprintf(&b, "deterministic run, seed %d (mpivet run --deterministic --seed %d reproduces it): one interleaving, checked, not explored", seed, seed)
	if ranks == 0 {
		b.WriteString("; no rank reached MPI_Finalize, so what determinism decided is not known")
		return b.String()
	}
	fmt.Fprintf(&b, "; K=%d; %d wildcard %s and %d %s decided by logical time, %d control %s",
		d.K, d.Wildcards, check.Plural(int(d.Wildcards), "receive or probe", "receives or probes"),
		d.Polls, check.Plural(int(d.Polls), "completion or poll", "completions or polls"),
		d.Control, check.Plural(int(d.Control), "message", "messages"))
	if d.Relaxed > 0 {
		fmt.Fprintf(&b, "; determinism relaxed %d %s: a deterministic wait was part of a deterministic deadlock (a cycle of waits that the light deadlock checker's probes found, or a rank that could not answer for 1 s, e.g. one blocked in a collective) and the decision was taken on the messages that had arrived, so this run may differ from another",
			d.Relaxed, check.Plural(int(d.Relaxed), "time", "times"))
	}
	if d.Uncovered > 0 {
		fmt.Fprintf(&b, "; %d %s left to the MPI (persistent requests, matched probes and collective requests are not made deterministic, nor a wildcard MPI_Irecv whose decision was relaxed)",
			d.Uncovered, check.Plural(int(d.Uncovered), "call", "calls"))
	}
	return b.String()
}
