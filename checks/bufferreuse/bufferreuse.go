// Package bufferreuse defines the buffer-reuse check: the program touched the
// buffer of a nonblocking operation before the operation completed.
package bufferreuse

import (
	"embed"
	"fmt"
	"strings"

	"mpivet/api"
	"mpivet/check"
	"mpivet/checks/internal/objects"
	"mpivet/trace"
)

// The check's documentation: buffer-reuse.md is its Doc, and every other
// KIND.md explains a kind (mpivet explain KIND, docs/checks.md).
//
//go:embed *.md
var docFiles embed.FS

var checkDoc, kindDocs = check.Docs(docFiles, "buffer-reuse")

// Check reports accesses to pending nonblocking buffers.
var Check = &check.Check{
	Name:     "buffer-reuse",
	Doc:      checkDoc,
	KindDocs: kindDocs,
	Requires: []*check.Check{objects.Analyzer},
	Run:      run,
}

func run(pass *check.Pass) (any, error) {
	objs := pass.ResultOf[objects.Analyzer].(*objects.Result)
	for _, p := range pass.In.Run.Procs {
		if len(p.Buffers) == 0 {
			continue
		}
		st := objs.Of(p)
		exact := exactWrites(p)
		for _, a := range p.Buffers {
			start := p.CallAt(a.Op)
			if start == nil {
				continue // its record was lost (log full)
			}
			if a.Kind == api.AccessOverlap {
				reportOverlap(pass, p, a, start)
				continue
			}
			if k, ok := windowKinds[a.Kind]; ok && exact[siteKind{start.PC, k}] {
				continue // the same bug, caught at its line in another run of the site
			}
			reportAccess(pass, p, st, a, start)
		}
	}
	return nil, nil
}

// siteKind is a kind of access to the buffers of operations started at one
// call site.
type siteKind struct {
	pc   uint64
	kind int
}

// windowKinds gives the exact kind a write found by comparison stands for.
var windowKinds = map[int]int{
	api.AccessWindowWriteSend: api.AccessWriteSend,
	api.AccessWindowWriteRecv: api.AccessWriteRecv,
}

// exactWrites lists the writes caught at their line, by start site. A loop
// that writes a pending buffer in every iteration is caught at its line in
// some iterations and, where the checker had stopped single-stepping the
// page, by comparison in others: one bug, reported once, with its line.
func exactWrites(p *trace.Process) map[siteKind]bool {
	m := map[siteKind]bool{}
	for _, a := range p.Buffers {
		if a.Kind != api.AccessWriteSend && a.Kind != api.AccessWriteRecv {
			continue
		}
		if start := p.CallAt(a.Op); start != nil {
			m[siteKind{start.PC, a.Kind}] = true
		}
	}
	return m
}

// what names an access kind.
var what = map[int]struct{ verb, buffer string }{
	api.AccessWriteSend:       {"writes", "send buffer"},
	api.AccessReadRecv:        {"reads", "receive buffer"},
	api.AccessWriteRecv:       {"writes", "receive buffer"},
	api.AccessWindowWriteSend: {"writes", "send buffer"},
	api.AccessWindowWriteRecv: {"writes", "receive buffer"},
}

func reportAccess(pass *check.Pass, p *trace.Process, st *objects.State, a trace.BufferAccess, start *trace.Call) {
	w, ok := what[a.Kind]
	if !ok {
		return
	}
	buffer := w.buffer
	if start.Def.Has("file") { // a file's data, not a message's
		buffer = "buffer"
	}
	var locs []check.Location
	window := a.Kind == api.AccessWindowWriteSend || a.Kind == api.AccessWindowWriteRecv
	if window && len(a.PCs) == 2 {
		// Found by the contents changing between two MPI calls.
		after := callSite(pass, p, a.PCs[0])
		after.Note = fmt.Sprintf("%s the pending %s after this MPI call returned", w.verb, buffer)
		before := callSite(pass, p, a.PCs[1])
		before.Note = "and before this MPI call (the exact line is not known: the page was touched too often to single-step every access)"
		locs = append(locs, after, before)
	} else {
		access := pass.AtAccess(p, a.PCs)
		access.Note = fmt.Sprintf("%s the pending %s", w.verb, buffer)
		if a.Thread.Tid != 0 && !a.Thread.Initial { // any thread of the rank faults (mprotect is process-wide)
			access.Note += ", in " + a.Thread.String()
		}
		locs = append(locs, access)
	}
	started := pass.At(p, start)
	started.Note = "operation started here"
	locs = append(locs, started)
	if init := p.CallAt(a.Init); init != nil && init != start {
		l := pass.At(p, init)
		l.Note = "persistent request created here"
		locs = append(locs, l)
	}
	var tail string
	done := completion(st, start, a.Request)
	switch {
	case start.Def.Has("rma"):
		done = rmaCompletion(p, start)
	case start.Def.Has("begin"):
		done = splitEnd(p, start)
	}
	if done != nil {
		l := pass.At(p, done)
		l.Note = "the operation completes only here"
		locs = append(locs, l)
		tail = fmt.Sprintf("before %s completes it", done.Name())
	} else if start.Def.Has("rma") {
		tail = "and no synchronisation of its window (fence, unlock, flush, complete) ever completes it"
	} else if start.Def.Has("begin") {
		tail = "and no " + strings.Replace(start.Name(), "_begin", "_end", 1) + " ever ends it"
	} else {
		tail = "and no Wait or Test ever completes the operation"
	}
	pass.Report(check.Finding{
		Message:   fmt.Sprintf("the program %s the %s of %s while the operation is pending, %s", w.verb, buffer, start.Name(), tail),
		Locations: locs,
	})
}

// rmaCompletion is the call that completes a one-sided operation at its
// origin: the next fence, unlock, flush or complete on its window (the
// buffer checker keeps its buffers pending until then). It reads the
// rank's calls again, once per finding.
func rmaCompletion(p *trace.Process, start *trace.Call) *trace.Call {
	after := false
	for c := range p.Calls() {
		if c.Offset == start.Offset {
			after = true
		}
		if !after {
			continue
		}
		switch c.Name() {
		case "MPI_Win_fence", "MPI_Win_unlock", "MPI_Win_unlock_all", "MPI_Win_flush", "MPI_Win_flush_all",
			"MPI_Win_flush_local", "MPI_Win_flush_local_all", "MPI_Win_complete", "MPI_Win_free":
			if c.Word("win") == start.Word("win") {
				return c.Keep()
			}
		}
	}
	return nil
}

// splitEnd is the call that ends a split collective on a file: the next
// end, or close, of its file (the buffer checker keeps its buffer pending
// until then). It reads the rank's calls again, once per finding.
func splitEnd(p *trace.Process, start *trace.Call) *trace.Call {
	after := false
	for c := range p.Calls() {
		if c.Offset == start.Offset {
			after = true
			continue
		}
		if after && (c.Def.Has("end") || c.Name() == "MPI_File_close") && c.Word("fh") == start.Word("fh") {
			return c.Keep()
		}
	}
	return nil
}

func reportOverlap(pass *check.Pass, p *trace.Process, a trace.BufferAccess, start *trace.Call) {
	other := p.CallAt(a.Other)
	if other == nil {
		return
	}
	l1 := pass.At(p, start)
	l1.Note = "this operation's buffer"
	l2 := pass.At(p, other)
	l2.Note = "overlaps the buffer of this pending operation"
	pass.Report(check.Finding{
		Message: fmt.Sprintf("%s starts on memory that the pending %s also uses, and one of them receives into it: the result is undefined",
			start.Name(), other.Name()),
		Locations: []check.Location{l1, l2},
	})
}

// callSite locates the MPI call whose return address is pc.
func callSite(pass *check.Pass, p *trace.Process, pc uint64) check.Location {
	l := check.Location{Rank: p.Rank}
	if pass.In.Sym != nil {
		l.SetSource(pass.In.Sym.Lookup(p.Maps, pc))
	}
	return l
}

// completion returns the call that completed the operation started by start
// on request req, or nil.
func completion(st *objects.State, start *trace.Call, req uint64) *trace.Call {
	for _, o := range st.Requests {
		for _, op := range o.Ops {
			if op.Start.Offset == start.Offset && o.Handle == req {
				return op.Done
			}
		}
	}
	// The MPI replaced the handle (a restarted persistent request): any
	// request with this start.
	for _, o := range st.Requests {
		for _, op := range o.Ops {
			if op.Start.Offset == start.Offset && op.Done != nil {
				return op.Done
			}
		}
	}
	return nil
}
