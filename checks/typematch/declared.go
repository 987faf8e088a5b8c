package typematch

import (
	"fmt"

	"mpivet/api"
	"mpivet/check"
	"mpivet/symbolize"
	"mpivet/trace"
)

// maxElements bounds the elements of one buffer compared with the
// variable: past the first few, an array's repeat.
const maxElements = 4096

// verdict of one element of a datatype over what the variable holds there.
type verdict int

const (
	fits    verdict = iota // the declared type is the datatype's
	skip                   // padding: nothing there
	unknown                // a union, a pointer ...: nothing is said of the whole buffer
	differs
)

// declared compares the buffers the layer saw given with a count and
// datatype (trace.Declared) with the variables the program's debug
// information declares at their addresses.
func declared(pass *check.Pass) {
	if pass.In.Sym == nil {
		return
	}
	for _, p := range pass.In.Run.Procs {
		said := map[string]bool{}
		for _, d := range p.Declared {
			msg, caller, ok := judge(pass.In.Sym, p, d)
			if !ok || said[fmt.Sprint(d.PC, msg)] {
				continue
			}
			said[fmt.Sprint(d.PC, msg)] = true
			l := at(pass, p, d.PC, "the call")
			l.Call = d.Call.Name
			locs := []check.Location{l}
			if caller != 0 {
				locs = append(locs, at(pass, p, caller, "where the function that owns the variable passed it down"))
			}
			pass.Report(check.Finding{Kind: "type-mismatch", Ranks: []int{p.Rank}, Message: msg, Locations: locs})
		}
	}
}

// judge gives the finding's message when the variable at d's buffer is
// declared with other basic types than d's datatype has, and the call site
// in the function that owns the variable if it is not the calling one.
func judge(sym *symbolize.Symbolizer, p *trace.Process, d trace.Declared) (string, uint64, bool) {
	class, size := int(d.Sig>>8), int64(d.Sig&0xff)
	if d.Sig == 0 || d.Sig&api.SigMixed != 0 || class == classByte || class == classPacked || class == classPair || size == 0 {
		return "", 0, false
	}
	v, where, caller, ok := variable(sym, p, d)
	if !ok || v.Name == "" {
		return "", 0, false
	}
	var bad symbolize.Leaf
	ok = false
	if d.Named {
		bad, ok = firstDiffering(v, class, size, d.Count)
	} else if l, homog := v.Homogeneous(); homog && compare(class, size, l) == differs {
		bad, ok = l, true
	}
	if !ok {
		return "", 0, false
	}
	param := ""
	if d.Param >= 0 && d.Param < len(d.Call.Params) {
		param = " (" + d.Call.Params[d.Param].Name + ")"
	}
	return fmt.Sprintf("rank %d gives %s%s %s, declared %s, as %s: %s holds %s",
		p.Rank, d.Call.Name, param, where, v.TypeName(), typeName(p, d), v.Name+bad.Path, article(bad.Type)), caller, true
}

// variable finds the variable at d's buffer: a local of the calling
// function, of a function above it (passed down through a pointer), or a
// global; where names it for the message.
func variable(sym *symbolize.Symbolizer, p *trace.Process, d trace.Declared) (v symbolize.Variable, where string, caller uint64, ok bool) {
	if v, caller, ok = sym.FrameLocal(p.Maps, d); ok && caller == 0 {
		return v, "the local variable " + v.Name, 0, true
	} else if ok {
		fn := sym.Lookup(p.Maps, caller).Function
		if fn == "" {
			fn = "a caller"
		}
		return v, fmt.Sprintf("the local variable %s of %s", v.Name, fn), caller, true
	}
	if v, ok = sym.Global(p.Maps, d.Addr); ok {
		return v, "the global variable " + v.Name, 0, true
	}
	return v, "", 0, false
}

// firstDiffering compares count elements of a predefined datatype, laid
// one after the other from the buffer, with the variable, up to its end.
func firstDiffering(v symbolize.Variable, class int, size, count int64) (symbolize.Leaf, bool) {
	end := v.Size()
	for i := int64(0); i < count && i < maxElements; i++ {
		off := v.Offset + i*size
		if off >= end {
			break
		}
		l := v.At(off)
		switch compare(class, size, l) {
		case unknown:
			return symbolize.Leaf{}, false
		case differs:
			return l, true
		}
	}
	return symbolize.Leaf{}, false
}

// compare says whether an element of basic type class and size can lie
// where the variable holds l. Types of the same kind and size are the same
// data (MPI_INT over int32_t, MPI_LONG over long long on LP64); the 1-byte
// types are bytes; a complex number is two floating-point numbers.
func compare(class int, size int64, l symbolize.Leaf) verdict {
	switch l.Kind {
	case symbolize.LeafUnknown:
		return unknown
	case symbolize.LeafPadding:
		return skip
	}
	same := l.Size == size && l.Within == 0
	switch class {
	case classChar, classInt, classUint:
		// A 1-byte type moves raw bytes of anything (MPI_CHAR over a
		// struct is as common in real codes as MPI_BYTE, and as harmless
		// between like processes), and signed against unsigned of one
		// size changes no byte: the standard calls both erroneous, but a
		// report of them would bury the mismatches that corrupt data.
		if size == 1 {
			return fits
		}
		if same && (l.Kind == symbolize.LeafEnum || l.Kind == symbolize.LeafSigned || l.Kind == symbolize.LeafUnsigned) {
			return fits
		}
	case classWchar:
		if same && (l.Kind == symbolize.LeafSigned || l.Kind == symbolize.LeafUnsigned || l.Kind == symbolize.LeafChar) {
			return fits
		}
	case classFloat:
		if same && l.Kind == symbolize.LeafFloat || l.Kind == symbolize.LeafComplex && l.Size == 2*size && l.Within%size == 0 {
			return fits
		}
	case classComplex:
		if same && l.Kind == symbolize.LeafComplex || l.Kind == symbolize.LeafFloat && 2*l.Size == size && l.Within == 0 {
			return fits
		}
	case classBool, classLogical:
		if same && l.Kind == symbolize.LeafBool {
			return fits
		}
	default:
		return unknown
	}
	return differs
}

// typeName names d's datatype: a predefined one by its name.
func typeName(p *trace.Process, d trace.Declared) string {
	if d.Named {
		if names := p.Consts[d.Type]; len(names) > 0 {
			return names[0]
		}
		return Describe(d.Sig)
	}
	return "a derived datatype of " + Describe(d.Sig)
}

func article(t string) string {
	if t == "" {
		return "another type"
	}
	switch t[0] {
	case 'a', 'e', 'i', 'o', 'u':
		return "an " + t
	}
	return "a " + t
}
