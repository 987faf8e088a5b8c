// Package unreceived defines the check of messages that no receive matches.
package unreceived

import (
	"embed"
	"fmt"
	"sort"

	"mpivet/check"
	"mpivet/checks/internal/comms"
	"mpivet/trace"
)

// The check's documentation: unreceived-message.md is its Doc, and every other
// KIND.md explains a kind (mpivet explain KIND, docs/checks.md).
//
//go:embed *.md
var docFiles embed.FS

var checkDoc, kindDocs = check.Docs(docFiles, "unreceived-message")

// Check reports messages sent and never received.
var Check = &check.Check{
	Name:     "unreceived-message",
	Doc:      checkDoc,
	KindDocs: kindDocs,
	Requires: []*check.Check{comms.Analyzer},
	Run:      run,
}

// group is the messages of one send site to one rank.
type group struct {
	recv  *trace.Process
	u     trace.Unreceived
	n     int
	bytes int
}

func run(pass *check.Pass) (any, error) {
	cs := pass.ResultOf[comms.Analyzer].(*comms.Result)
	for _, p := range pass.In.Run.Procs {
		if len(p.Unreceived) == 0 {
			continue
		}
		x := cs.Of(p)
		groups := map[trace.Unreceived]*group{}
		var order []trace.Unreceived
		for _, u := range p.Unreceived {
			k := u
			k.Bytes = 0
			g := groups[k]
			if g == nil {
				g = &group{recv: p, u: u}
				groups[k] = g
				order = append(order, k)
			}
			g.n++
			g.bytes += u.Bytes
		}
		sort.SliceStable(order, func(i, j int) bool { return order[i].World < order[j].World })
		for _, k := range order {
			report(pass, x, groups[k])
		}
	}
	return nil, nil
}

func report(pass *check.Pass, x *comms.Index, g *group) {
	u, p := g.u, g.recv
	what := "a message"
	if g.n > 1 {
		what = fmt.Sprintf("%d messages", g.n)
	}
	comm := x.Name(u.Comm)
	msg := fmt.Sprintf("%s sent by rank %d to rank %d (tag %d, %s, %d bytes) %s never received",
		what, u.World, p.Rank, u.Tag, comm, g.bytes, check.Plural(g.n, "is", "are"))
	if u.Freed {
		msg += fmt.Sprintf(": rank %d freed %s with the message waiting", p.Rank, comm)
	} else {
		msg += fmt.Sprintf(" before rank %d's MPI_Finalize", p.Rank)
	}
	var locs []check.Location
	ranks := []int{u.World, p.Rank}
	if s := pass.In.Run.Rank(u.World); s != nil {
		send := check.Location{Rank: u.World, Note: "sent here"}
		if u.SendPC != 0 {
			send = pass.AtSite(s, "", u.SendPC)
			send.Note = "sent here"
		} else {
			msg += " (the line of its send is known only with the clock protocol, which was off)"
		}
		locs = append(locs, send)
	}
	end := pass.At(p, p.FinalizeCall())
	end.Note = "MPI_Finalize called with the message unreceived"
	if u.Freed {
		if c := freeCall(p, u.Comm); c != nil {
			end = pass.At(p, c)
			end.Note = "communicator freed with the message unreceived"
		}
	}
	locs = append(locs, end)
	if u.World == p.Rank {
		ranks = ranks[:1]
	}
	sort.Ints(ranks)
	pass.Report(check.Finding{Ranks: ranks, Message: msg, Locations: locs})
}

// freeCall returns the last call of p that freed communicator comm.
func freeCall(p *trace.Process, comm uint64) *trace.Call {
	var last *trace.Call
	for c := range p.Calls() {
		if (c.Name() == "MPI_Comm_free" || c.Name() == "MPI_Comm_disconnect") && c.Word("comm") == comm {
			last = c
		}
	}
	return last
}

// Explains reports whether a deadlock of zero, a run of the program with
// standard-mode sends synchronous, is one of first's unreceived messages: a
// rank blocked in a send whose message first found never received. That send
// waits forever under any buffering, which is not what unsafe-buffering
// means, and the unreceived-message finding of first already says why.
func Explains(first, zero *trace.Run) bool {
	for _, p := range zero.Procs {
		c := p.Current
		if c == nil || c.Returned || !c.Def.Has("send") || !c.HasField("dest") {
			continue
		}
		r := first.Rank(int(c.Int("dest")))
		if r == nil {
			continue
		}
		for _, u := range r.Unreceived {
			if u.World == p.Rank && u.Tag == c.Int("tag") {
				return true
			}
		}
	}
	return false
}
