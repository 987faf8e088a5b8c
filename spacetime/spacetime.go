// Package spacetime turns the records of one interleaving into the trail
// the reports draw (report.Trail): each rank's last calls before the run
// ended, with their source lines, the messages between them as the MPI
// matched them, the wildcard events the replay forced, and where each rank
// stopped. The HTML report draws it as a space-time diagram, SARIF as one
// thread flow per rank.
//
// It is built only for interleavings with a new finding, while their
// records are still there, and is bounded: at most PerRank calls per rank,
// so a report of a long run or of many ranks stays small.
package spacetime

import (
	"fmt"

	"mpivet/checks/failure"
	"mpivet/checks/zerobuf"
	"mpivet/report"
	"mpivet/symbolize"
	"mpivet/trace"
)

// PerRank is how many calls of each rank a trail keeps by default: the last
// ones, which lead to a deadlock or crash.
const PerRank = 12

// maxPairedCalls bounds the runs whose messages are paired: pairing reads
// every call of the run, and a trail only shows the last few.
const maxPairedCalls = 2_000_000

// Build returns the trail of interleaving n from its records, keeping the
// last perRank calls of each rank.
func Build(run *trace.Run, n int, sym *symbolize.Symbolizer, perRank int) *report.Trail {
	t := &report.Trail{Interleaving: n}
	total := 0
	for _, p := range run.Procs {
		total += p.NumCalls
	}
	type key struct{ rank, seq int }
	shown := map[key]bool{} // the calls drawn
	for _, p := range run.Procs {
		if p.Rank < 0 {
			continue
		}
		t.Lanes = append(t.Lanes, lane(p, sym, perRank))
		for _, c := range t.Lanes[len(t.Lanes)-1].Calls {
			shown[key{p.Rank, c.Seq}] = true
		}
	}
	if total > maxPairedCalls {
		return t
	}
	pairs, _ := zerobuf.Messages(run) // without them, the diagram has no arrows
	for _, m := range pairs {
		if m.Send == nil || m.Recv == nil {
			continue
		}
		if shown[key{m.From, m.Send.Seq}] && shown[key{m.To, m.Recv.Seq}] {
			t.Messages = append(t.Messages, report.Message{From: m.From, FromSeq: m.Send.Seq, To: m.To, ToSeq: m.Recv.Seq})
		}
	}
	return t
}

// lane is rank p's last calls, and how it ended.
func lane(p *trace.Process, sym *symbolize.Symbolizer, perRank int) report.Lane {
	l := report.Lane{Rank: p.Rank}
	calls, all := lastCalls(p, perRank+1)
	if cur := p.Current; cur != nil && cur.Seq < 0 && !cur.Returned && !sameCall(calls, cur) {
		calls = append(calls, cur) // known from the state page only
		all++
	}
	if len(calls) > perRank {
		calls = calls[len(calls)-perRank:]
	}
	l.Skipped = all - len(calls)
	anySource := int64(-1)
	if v, ok := p.Const("MPI_ANY_SOURCE"); ok {
		anySource = int64(v)
	}
	wild := map[uint64]*trace.Wildcard{}
	for _, w := range p.Wild {
		if w.Offset != trace.Unknown {
			wild[w.Offset] = w
		}
	}
	for i, c := range calls {
		seq := c.Seq
		if seq < 0 {
			seq = p.NumCalls // the call the rank is in
		}
		lc := report.Call{Seq: seq, Name: c.Name(), Peer: peer(c, wild[c.Offset], anySource)}
		lc.Loc.SetSource(sym.Lookup(p.Maps, c.PC))
		lc.Loc.Rank = p.Rank
		if w := wild[c.Offset]; w != nil && c.Seq >= 0 {
			lc.Wildcard = true
			lc.Forced = w.Forced != anySource
		}
		lc.Stopped = i == len(calls)-1 && !c.Returned && !c.Def.Has("finalize")
		l.Calls = append(l.Calls, lc)
	}
	l.End = end(p)
	return l
}

// lastCalls reads rank p's calls (trace.Process.Calls) and keeps the last
// n (copied out of the reading: Call.Keep), with how many it logged.
func lastCalls(p *trace.Process, n int) ([]*trace.Call, int) {
	ring := make([]*trace.Call, 0, n)
	all := 0
	for c := range p.Calls() {
		if len(ring) == n {
			copy(ring, ring[1:])
			ring = ring[:n-1]
		}
		ring = append(ring, c.Keep())
		all++
	}
	return ring, all
}

// sameCall reports whether the state page's call cur is the last logged
// call, which has not returned either (a blocking call's brief record).
func sameCall(calls []*trace.Call, cur *trace.Call) bool {
	if len(calls) == 0 {
		return false
	}
	last := calls[len(calls)-1]
	return !last.Returned && last.Def == cur.Def && last.PC == cur.PC
}

// peer says whom a point-to-point call names: "to 1", "from 2", "from any:
// 2" (a wildcard and what it matched), in the ranks of its communicator.
func peer(c *trace.Call, w *trace.Wildcard, anySource int64) string {
	switch {
	case c.HasField("dest") && c.HasField("source"):
		return fmt.Sprintf("to %d, from %s", c.Int("dest"), source(c, w, anySource))
	case c.HasField("dest"):
		return fmt.Sprintf("to %d", c.Int("dest"))
	case c.HasField("source"):
		return "from " + source(c, w, anySource)
	case c.HasField("root"):
		return fmt.Sprintf("root %d", c.Int("root"))
	}
	return ""
}

func source(c *trace.Call, w *trace.Wildcard, anySource int64) string {
	s := c.Int("source")
	if s != anySource {
		return fmt.Sprint(s)
	}
	if w != nil && w.Matched {
		return fmt.Sprintf("any: %d", w.Source)
	}
	return "any"
}

// end says how rank p ended, or where it stopped.
func end(p *trace.Process) string {
	if p.Signal != nil {
		return "crashed: " + failure.SignalName(p.Signal.Number)
	}
	if x := p.Exit; x != nil {
		switch {
		case x.Signal != 0:
			return "killed by " + failure.SignalName(x.Signal)
		case x.Exited && x.Code != 0:
			return fmt.Sprintf("exited with status %d", x.Code)
		}
	}
	if last := p.Last(); last != nil {
		switch {
		case last.Def.Has("finalize") && last.Returned:
			return "finalized"
		case !last.Returned:
			return "stopped in " + last.Name()
		}
	}
	if p.Exit != nil && p.Exit.Exited {
		return "exited"
	}
	return ""
}
