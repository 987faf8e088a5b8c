package heap

import (
	"fmt"

	"mpivet/api"
	"mpivet/check"
	"mpivet/symbolize"
	"mpivet/trace"
)

// stackOverruns reports buffers that run past the end of a local variable
// of the calling function or of a function above it, as the program's
// debug information declares it: the layer logs each call site's buffer
// with its count and datatype once, with the calling frames
// (trace.Declared, layer/src/declared), for the type-mismatch check.
// Only predefined datatypes are measured (count times the element's size:
// their elements lie one after the other); globals are the layer's own
// records (globals.go), heap blocks the allocator's.
func stackOverruns(pass *check.Pass) {
	if pass.In.Sym == nil {
		return
	}
	for _, p := range pass.In.Run.Procs {
		said := map[uint64]bool{}
		for _, d := range p.Declared {
			size := int64(d.Sig & 0xff)
			if !d.Named || d.Count <= 0 || d.Sig == 0 || d.Sig&api.SigMixed != 0 || d.Sig>>8 == api.SigPair || size == 0 || said[d.PC] {
				continue
			}
			v, fn, caller, ok := local(pass.In.Sym, p, d)
			if !ok || v.Size() <= 0 || v.Offset+d.Count*size <= v.Size() {
				continue
			}
			said[d.PC] = true
			pass.Report(stackFinding(pass, p, d, v, fn, caller, size))
		}
	}
}

// local finds the local variable that holds d's buffer: of the calling
// function, or of a function above it (a buffer passed down), whose name
// and call site are then given.
func local(sym *symbolize.Symbolizer, p *trace.Process, d trace.Declared) (v symbolize.Variable, fn string, caller uint64, ok bool) {
	if v, caller, ok = sym.FrameLocal(p.Maps, d); ok && caller != 0 {
		fn = sym.Lookup(p.Maps, caller).Function
	}
	return v, fn, caller, ok
}

func stackFinding(pass *check.Pass, p *trace.Process, d trace.Declared, v symbolize.Variable, fn string, caller uint64, size int64) check.Finding {
	param := "buffer"
	if d.Param >= 0 && d.Param < len(d.Call.Params) {
		param = d.Call.Params[d.Param].Name
	}
	name := typeName(p, d.Type)
	owner := "the local variable " + v.Name
	if fn != "" {
		owner += " of " + fn
	}
	end, over := v.Offset+d.Count*size, v.Offset+d.Count*size-v.Size()
	l := pass.AtSite(p, d.Call.Name, d.PC)
	l.Note = fmt.Sprintf("%s covers bytes %d..%d of %s (%d bytes)", param, v.Offset, end, owner, v.Size())
	locs := []check.Location{l}
	if caller != 0 {
		c := pass.AtSite(p, "", caller)
		c.Note = fmt.Sprintf("where %s passed %s down", fn, v.Name)
		locs = append(locs, c)
	}
	return check.Finding{Kind: "buffer-overrun", Ranks: []int{p.Rank}, Locations: locs,
		Message: fmt.Sprintf("rank %d gives %s %d %s from byte %d of %s, declared %s: %d bytes past its end",
			p.Rank, d.Call.Name, d.Count, name, v.Offset, owner, v.TypeName(), over)}
}

// typeName names a predefined datatype by its handle.
func typeName(p *trace.Process, h uint64) string {
	if names := p.Consts[h]; len(names) > 0 {
		return names[0]
	}
	return "elements"
}
