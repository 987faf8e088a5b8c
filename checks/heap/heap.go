// Package heap defines the check of MPI calls' buffers against the heap
// blocks that hold them, which the layer (layer/src/heap) makes in each
// rank before the call reaches the MPI: it interposes the allocator, so it
// knows every live heap block's start, size and allocation site without
// recompiling the program.
//
// Why in the layer: a receive, a collective or a Get past the end of its
// buffer writes over the heap's other data, and the program fails later,
// elsewhere, or not at all; a send from freed memory sends whatever the
// allocator put there. The record is in the log before the MPI touches the
// bytes.
package heap

import (
	"embed"
	"fmt"
	"sort"

	"mpivet/api"
	"mpivet/check"
	"mpivet/trace"
)

//go:embed *.md
var docFiles embed.FS

var checkDoc, kindDocs = check.Docs(docFiles, "heap")

// Check reports buffers that run out of their heap block or lie in freed
// memory, and heap blocks freed while an operation's buffer is pending.
var Check = &check.Check{
	Name:     "heap",
	Kinds:    []string{"buffer-overrun", "freed-buffer"},
	Doc:      checkDoc,
	KindDocs: kindDocs,
	Run:      run,
}

// key identifies a finding: one per site, parameter and kind, with the
// ranks that made it.
type key struct {
	what, param int
	global      string
	file, fn    string
	line        int
	module, off string
}

type group struct {
	h      trace.Heap
	global string // the global's name, for an overrun of a global
	ranks  []int
	locs   []check.Location
}

func run(pass *check.Pass) (any, error) {
	groups := map[key]*group{}
	var order []key
	for _, p := range pass.In.Run.Procs {
		for _, h := range p.Heap {
			var name string
			if h.What == api.HeapGlobal {
				var ok bool
				if h, name, ok = global(pass, p, h); !ok {
					continue
				}
			}
			l := at(pass, p, h)
			k := key{what: h.What, param: h.Param, global: name, file: l.File, fn: l.Function, line: l.Line, module: l.Module, off: l.Offset}
			g := groups[k]
			if g == nil {
				g = &group{h: h, global: name}
				groups[k] = g
				order = append(order, k)
			}
			if len(g.ranks) == 0 || g.ranks[len(g.ranks)-1] != p.Rank {
				g.ranks = append(g.ranks, p.Rank)
				g.locs = append(g.locs, locations(pass, p, h, l, name)...)
			}
		}
	}
	for _, k := range order {
		g := groups[k]
		sort.Ints(g.ranks)
		locs := g.locs
		if len(locs) > 6 { // the same line on every rank: a few say it
			locs = locs[:6]
		}
		kind := "buffer-overrun"
		if g.h.What != api.HeapOverrun {
			kind = "freed-buffer"
		}
		pass.Report(check.Finding{Kind: kind, Message: message(g.h, g.global), Locations: locs})
	}
	stackOverruns(pass)
	return nil, nil
}

// at is where the finding is: the call, or the free() of a pending buffer
// or of a window's memory.
func at(pass *check.Pass, p *trace.Process, h trace.Heap) check.Location {
	if h.What == api.HeapFreePending || h.What == api.HeapFreeWindow {
		l := pass.AtSite(p, freer(h), h.PC)
		l.Call = freer(h)
		return l
	}
	return pass.AtSite(p, h.Call.Name, h.PC)
}

// freer is the allocator call that gave the block back.
func freer(h trace.Heap) string {
	if h.Param == -2 {
		return "realloc"
	}
	return "free"
}

// locations are the finding's place, then where the block was allocated
// and (freed memory) freed.
func locations(pass *check.Pass, p *trace.Process, h trace.Heap, l check.Location, global string) []check.Location {
	l.Note = note(h, global)
	locs := []check.Location{l}
	if h.AllocPC != 0 {
		a := pass.AtSite(p, "malloc", h.AllocPC)
		a.Call = ""
		a.Note = fmt.Sprintf("the block of %d bytes was allocated here", h.Size)
		locs = append(locs, a)
	}
	if c := p.CallAt(h.Other); h.What == api.HeapFreeWindow && c != nil {
		w := pass.At(p, c)
		w.Note = "the window's memory was given to the MPI here"
		locs = append(locs, w)
	}
	if c := p.CallAt(h.Other); h.What == api.HeapFreePending && c != nil {
		s := pass.At(p, c)
		s.Note = "the pending " + c.Name() + " whose buffer lies in the block, not completed before the free"
		if c.Seq >= 0 {
			s.Note = fmt.Sprintf("the pending %s whose buffer lies in the block: call %d of the rank in mpivet dump, not completed before the free",
				c.Name(), c.Seq)
		}
		locs = append(locs, s)
	}
	if h.What == api.HeapFreed && h.FreePC != 0 {
		f := pass.AtSite(p, "free", h.FreePC)
		f.Call = ""
		f.Note = "and freed here"
		locs = append(locs, f)
	}
	return locs
}

func paramName(h trace.Heap) string {
	if h.Param < 0 || h.Param >= len(h.Call.Params) {
		return "buffer"
	}
	return h.Call.Params[h.Param].Name
}

func note(h trace.Heap, global string) string {
	switch h.What {
	case api.HeapOverrun:
		of := "a block"
		if global != "" {
			of = "the global"
		}
		return fmt.Sprintf("%s=%#x covers bytes %d..%d of %s of %d", paramName(h), h.Buf,
			int64(h.Lo-h.Start), int64(h.Hi-h.Start), of, h.Size)
	case api.HeapFreed:
		return fmt.Sprintf("%s=%#x is %d bytes into a freed block", paramName(h), h.Buf, h.Buf-h.Start)
	}
	if (h.What == api.HeapFreeWindow || h.What == api.HeapFreePending) && h.Lo != h.Start {
		return fmt.Sprintf("gives back bytes %d..%d of the block at %#x", h.Lo-h.Start, h.Hi-h.Start, h.Start)
	}
	return fmt.Sprintf("frees the block at %#x", h.Start)
}

// message says what is wrong, with the overrun in bytes.
func message(h trace.Heap, global string) string {
	switch h.What {
	case api.HeapOverrun:
		end := h.Start + h.Size
		var over []string
		if h.Hi > end {
			over = append(over, fmt.Sprintf("%d bytes past the end", h.Hi-end))
		}
		if h.Lo < h.Start {
			over = append(over, fmt.Sprintf("%d bytes before the start", h.Start-h.Lo))
		}
		s := over[0]
		if len(over) > 1 {
			s += " and " + over[1]
		}
		of := "the heap block"
		if global != "" {
			of = "the global " + global
		}
		return fmt.Sprintf("%s: %s covers %d bytes, %s of %s of %d bytes it starts in",
			h.Call.Name, paramName(h), h.Hi-h.Lo, s, of, h.Size)
	case api.HeapFreed:
		return fmt.Sprintf("%s: %s lies in a heap block of %d bytes that was freed before the call",
			h.Call.Name, paramName(h), h.Size)
	}
	if h.What == api.HeapFreeWindow {
		end := "MPI_Win_free"
		if h.Call.Name == "MPI_Win_attach" {
			end = "MPI_Win_detach"
		}
		return fmt.Sprintf("%s() of a heap block of %d bytes that holds the memory of a window (%s), before %s",
			freer(h), h.Size, h.Call.Name, end)
	}
	return fmt.Sprintf("%s() of a heap block of %d bytes that holds the buffer of a pending %s, before its completion",
		freer(h), h.Size, h.Call.Name)
}
