// Package arguments defines the check of MPI calls' arguments against the
// rules of the standard, which the layer (layer/src/arguments) applies in
// each rank before the call reaches the MPI.
//
// Why in the layer and before the call: an MPI that meets an invalid
// argument ends the job inside the call under MPI_ERRORS_ARE_FATAL, each
// MPI in its own words (or not at all: an overlap, an operation undefined
// for the type, a NULL buffer may pass or corrupt memory), and never with
// the program's line. The layer's record is in the log before the MPI sees
// the argument, so the finding is there whatever the MPI does next.
package arguments

import (
	"embed"
	"fmt"
	"sort"
	"strings"

	"mpivet/api"
	"mpivet/check"
	"mpivet/trace"
)

// The check's documentation: arguments.md is its Doc, and every other
// KIND.md explains a kind (mpivet explain KIND, docs/checks.md).
//
//go:embed *.md
var docFiles embed.FS

var checkDoc, kindDocs = check.Docs(docFiles, "arguments")

// Check reports arguments that break the standard's rules.
var Check = &check.Check{
	Name:     "arguments",
	Kinds:    []string{"invalid-argument"},
	Doc:      checkDoc,
	KindDocs: kindDocs,
	Run:      run,
}

// key identifies a finding: one per call site, parameter and rule, with
// the ranks that broke the rule there.
type key struct {
	call        string
	param, rule int
	file        string
	line        int
	fn, module  string
	offset      string
}

type group struct {
	a     trace.Argument
	proc  *trace.Process
	ranks []int
	locs  []check.Location
	made  *check.Location // where the datatype was made (ArgTypeUncommitted)
}

// madeAt gives where the uncommitted datatype of a was made: the layer
// keeps the constructor's call (limit) and site (other value).
func madeAt(pass *check.Pass, p *trace.Process, a trace.Argument) (*check.Location, bool) {
	if a.Rule != api.ArgTypeUncommitted || a.OtherValue == 0 || a.Limit <= 0 || a.Limit >= int64(len(api.MPI.Calls)) {
		return nil, false
	}
	c := api.MPI.Calls[a.Limit]
	l := pass.AtSite(p, c.Name, uint64(a.OtherValue))
	l.Note = "the datatype made here by " + c.Name + ", never committed"
	return &l, true
}

func run(pass *check.Pass) (any, error) {
	groups := map[key]*group{}
	var order []key
	for _, p := range pass.In.Run.Procs {
		for _, a := range p.Arguments {
			l := pass.AtSite(p, a.Call.Name, a.PC)
			k := key{call: a.Call.Name, param: a.Param, rule: a.Rule, file: l.File, line: l.Line, fn: l.Function,
				module: l.Module, offset: l.Offset}
			g := groups[k]
			if g == nil {
				g = &group{a: a, proc: p}
				groups[k] = g
				order = append(order, k)
			}
			if len(g.ranks) == 0 || g.ranks[len(g.ranks)-1] != p.Rank {
				g.ranks = append(g.ranks, p.Rank)
				l.Note = "called with " + describe(p, a)
				g.locs = append(g.locs, l)
				if m, ok := madeAt(pass, p, a); ok && len(g.ranks) == 1 {
					g.made = m
				}
			}
		}
	}
	for _, k := range order {
		g := groups[k]
		sort.Ints(g.ranks)
		locs := g.locs
		if len(locs) > 4 { // the same line on every rank: a few say it
			locs = locs[:4]
		}
		if g.made != nil {
			locs = append(locs, *g.made)
		}
		pass.Report(check.Finding{
			Kind:      "invalid-argument",
			Message:   g.a.Call.Name + ": " + message(g.proc, g.a),
			Locations: locs,
		})
	}
	return nil, nil
}

func paramName(a trace.Argument, i int) string {
	if i < 0 || i >= len(a.Call.Params) {
		return "?"
	}
	return a.Call.Params[i].Name
}

// value formats the argument as the program wrote it: a constant's name, a
// handle or an address in hex, an integer in decimal.
func value(p *trace.Process, a trace.Argument, i int, v int64) string {
	prm := a.Call.Params[i]
	switch {
	case prm.Handle != "":
		// a constant of the handle's kind first: MPICH's MPI_FILE_NULL is
		// 0, as MPI_BOTTOM is
		for _, n := range p.Consts[uint64(v)] {
			if strings.HasPrefix(n, "MPI_"+strings.ToUpper(string(prm.Handle))+"_") {
				return n
			}
		}
		return check.HandleName(p, uint64(v))
	case prm.IsBuffer() || prm.Ptrs > 0:
		if v == 0 {
			return "NULL"
		}
		if a.Rule == api.ArgInPlace && i == a.Param {
			return "MPI_IN_PLACE"
		}
		return fmt.Sprintf("%#x", uint64(v))
	}
	consts := map[string][]string{ // the constants each may be
		"source": {"MPI_ANY_SOURCE", "MPI_PROC_NULL"}, "dest": {"MPI_PROC_NULL"},
		"tag": {"MPI_ANY_TAG"}, "recvtag": {"MPI_ANY_TAG"}, "root": {"MPI_ROOT", "MPI_PROC_NULL"},
	}
	for _, n := range consts[prm.Name] {
		if c, ok := p.Const(n); ok && int64(int32(c)) == v {
			return n
		}
	}
	return fmt.Sprint(v)
}

func describe(p *trace.Process, a trace.Argument) string {
	name := paramName(a, a.Param)
	if i := index(a); i >= 0 {
		name += fmt.Sprintf("[%d]", i)
	}
	if a.Rule == api.ArgTypeArg && a.Limit&0xff == api.TypeArgPsizes {
		name = "the product of " + name
	}
	return name + "=" + value(p, a, a.Param, a.Value)
}

// index is the element of an array parameter the record is about, or -1:
// the limit's upper bits for ArgTypeArg, the limit of ArgTypeNull and
// ArgTypeFreed when the parameter is an array (MPI_Type_create_struct's
// types).
func index(a trace.Argument) int {
	switch {
	case a.Rule == api.ArgTypeArg:
		return int(a.Limit>>8) - 1
	case (a.Rule == api.ArgTypeNull || a.Rule == api.ArgTypeFreed) && a.Param >= 0 && a.Param < len(a.Call.Params) &&
		a.Call.Params[a.Param].Array:
		return int(a.Limit) - 1
	}
	return -1
}

// message says which rule the argument breaks.
func message(p *trace.Process, a trace.Argument) string {
	arg := describe(p, a)
	name := paramName(a, a.Param)
	switch a.Rule {
	case api.ArgRank:
		also := "nor MPI_PROC_NULL"
		if name == "source" {
			also = "nor MPI_PROC_NULL or MPI_ANY_SOURCE"
		}
		return fmt.Sprintf("%s is not a rank of the communicator (%d %s: 0..%d) %s", arg,
			a.Limit, check.Plural(int(a.Limit), "rank", "ranks"), a.Limit-1, also)
	case api.ArgRoot:
		return fmt.Sprintf("%s is not a rank of the communicator (%d %s: 0..%d); every member must give the same root in range",
			arg, a.Limit, check.Plural(int(a.Limit), "rank", "ranks"), a.Limit-1)
	case api.ArgCount:
		return fmt.Sprintf("%s: a count must not be negative", arg)
	case api.ArgTypeNull:
		return fmt.Sprintf("%s is not a datatype", arg)
	case api.ArgTypeUncommitted:
		return fmt.Sprintf("%s is a derived datatype not committed: call MPI_Type_commit before it describes data (MPI 4.0 §5.1.9)", arg)
	case api.ArgTypeFreed:
		return fmt.Sprintf("%s is a datatype already freed by MPI_Type_free", arg)
	case api.ArgCommNull:
		return fmt.Sprintf("%s is not a communicator", arg)
	case api.ArgCommFreed:
		return fmt.Sprintf("%s is a communicator already freed", arg)
	case api.ArgTag:
		also := ""
		if name == "tag" && (a.Call.Has("recv") || a.Call.Has("probe")) && !a.Call.Has("send") || name == "recvtag" {
			also = ", or MPI_ANY_TAG"
		}
		return fmt.Sprintf("%s is not a valid tag: tags go from 0 to MPI_TAG_UB (%d here)%s", arg, a.Limit, also)
	case api.ArgOpNull:
		return fmt.Sprintf("%s is not a reduction operation", arg)
	case api.ArgOpFreed:
		return fmt.Sprintf("%s is an operation already freed by MPI_Op_free", arg)
	case api.ArgOpType:
		t := check.HandleName(p, uint64(a.OtherValue))
		if len(p.Consts[uint64(a.OtherValue)]) == 0 {
			return fmt.Sprintf("%s is not defined for the derived datatype %s=%s: predefined operations apply to predefined datatypes (MPI 4.0 §6.9.2; a user operation, MPI_Op_create, takes any)",
				arg, paramName(a, a.Other), t)
		}
		return fmt.Sprintf("%s is not defined for the datatype %s=%s (MPI 4.0 §6.9.2)", arg, paramName(a, a.Other), t)
	case api.ArgBufferNull:
		return fmt.Sprintf("%s with %s=%d elements of a predefined datatype", arg, paramName(a, a.Other), a.OtherValue)
	case api.ArgOverlap:
		return fmt.Sprintf("%s overlaps %s=%#x (%d bytes in common): the send and receive buffers must be disjoint (MPI_IN_PLACE where the call allows it)",
			arg, paramName(a, a.Other), uint64(a.OtherValue), a.Limit)
	case api.ArgInPlace:
		return fmt.Sprintf("%s is not allowed here: %s", arg, inPlaceRule(a))
	case api.ArgOffset:
		return fmt.Sprintf("%s: a file offset, size or displacement must not be negative (MPI 4.0 §14)", arg)
	case api.ArgAmode:
		return fmt.Sprintf("amode=%s: %s (MPI 4.0 §14.2.1)", check.AmodeName(p, a.Value), amodeRule(a.Limit))
	case api.ArgFileNull:
		if a.Call.Param("fh") == a.Param && a.Call.Params[a.Param].Role == api.Free {
			return fmt.Sprintf("%s: the file is closed already (MPI_File_close set the handle to MPI_FILE_NULL)", arg)
		}
		return fmt.Sprintf("%s is not an open file (closed already?)", arg)
	case api.ArgFileClosed:
		return fmt.Sprintf("%s is a file handle whose file was closed already", arg)
	case api.ArgAssert:
		return fmt.Sprintf("assertion=%s: %s takes only %s (MPI 4.0 §12.5.5)", modes(p, a.Value), a.Call.Name, modes(p, a.Limit))
	case api.ArgTypeArg:
		return arg + ": " + typeArgRule(p, a)
	case api.ArgTypeFreePredef:
		return fmt.Sprintf("%s is a predefined datatype: the program must not free a predefined object (MPI 4.0 §2.5.1)", arg)
	case api.ArgTypeOverlap:
		return fmt.Sprintf("%s has entries that overlap: with %s=%d it writes byte %d of the buffer twice, and a datatype must not write a byte twice where a call stores data (a receive, a read, a one-sided call's origin or target buffer: MPI 4.0 §5.1, §12.3)",
			arg, countName(a), a.Limit, a.OtherValue)
	case api.ArgWinBase:
		return fmt.Sprintf("%s for a window of %s=%d bytes: the window's memory must be there to hold them", arg, paramName(a, a.Other), a.OtherValue)
	}
	return fmt.Sprintf("%s breaks rule %d", arg, a.Rule)
}

// modes names the bits of a window assertion (MPI_MODE_NOCHECK ...), the
// bits no constant names in hex.
func modes(p *trace.Process, v int64) string {
	var names []string
	for _, n := range []string{"MPI_MODE_NOCHECK", "MPI_MODE_NOSTORE", "MPI_MODE_NOPUT", "MPI_MODE_NOPRECEDE", "MPI_MODE_NOSUCCEED"} {
		if c, ok := p.Const(n); ok && c != 0 && uint64(v)&c == c {
			names = append(names, n)
			v &^= int64(c)
		}
	}
	if v != 0 || len(names) == 0 {
		names = append(names, fmt.Sprintf("%#x", v))
	}
	return strings.Join(names, "|")
}

// countName names the count of the datatype an ArgTypeOverlap record is
// about: the parameter before it, a count.
func countName(a trace.Argument) string {
	if n := paramName(a, a.Param-1); strings.HasSuffix(n, "count") {
		return n
	}
	return "count"
}

// typeArgRule says what is wrong with a datatype constructor's argument
// (the low byte of the limit, api.TypeArg*).
func typeArgRule(p *trace.Process, a trace.Argument) string {
	other := paramName(a, a.Other)
	if i := index(a); i >= 0 {
		other += fmt.Sprintf("[%d]", i)
	}
	switch a.Limit & 0xff {
	case api.TypeArgNegative:
		return "a count or block length must not be negative (MPI 4.0 §5.1.2)"
	case api.TypeArgPositive:
		return "it must be positive (MPI 4.0 §5.1.3, §5.1.4)"
	case api.TypeArgSubsize:
		return fmt.Sprintf("a subsize must be within 1..%s=%d (MPI 4.0 §5.1.3)", other, a.OtherValue)
	case api.TypeArgStart:
		if a.OtherValue < 0 {
			return "no start fits: the subsize exceeds the size (MPI 4.0 §5.1.3)"
		}
		return fmt.Sprintf("a start must be within 0..%d, %s less the subsize (MPI 4.0 §5.1.3)", a.OtherValue, other)
	case api.TypeArgOrder:
		return "the order must be MPI_ORDER_C or MPI_ORDER_FORTRAN (MPI 4.0 §5.1.3)"
	case api.TypeArgRank:
		return fmt.Sprintf("the rank must be within 0..%d, below size=%d (MPI 4.0 §5.1.4)", a.OtherValue-1, a.OtherValue)
	case api.TypeArgDistrib:
		return "a distribution must be MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC or MPI_DISTRIBUTE_NONE (MPI 4.0 §5.1.4)"
	case api.TypeArgPsizes:
		return fmt.Sprintf("the product of the process grid's dimensions must be size=%d (MPI 4.0 §5.1.4)", a.OtherValue)
	case api.TypeArgBlock:
		return fmt.Sprintf("a block distribution of %s needs a darg of at least %d, to cover it with the processes of the dimension (MPI 4.0 §5.1.4)",
			other, a.OtherValue)
	}
	return "out of range"
}

func amodeRule(why int64) string {
	switch why {
	case api.AmodeAccess:
		return "an access mode needs exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY and MPI_MODE_RDWR"
	case api.AmodeReadCreate:
		return "MPI_MODE_CREATE and MPI_MODE_EXCL are not allowed with MPI_MODE_RDONLY"
	case api.AmodeRdwrSeq:
		return "MPI_MODE_SEQUENTIAL is not allowed with MPI_MODE_RDWR"
	}
	return "not a valid access mode"
}

func inPlaceRule(a trace.Argument) string {
	switch {
	case a.Call.Has("p2p"):
		return "point-to-point calls take no MPI_IN_PLACE"
	case strings.Contains(a.Call.Name, "eighbor"):
		return "neighbourhood collectives take no MPI_IN_PLACE"
	case strings.Contains(a.Call.Name, "catter") && !strings.Contains(a.Call.Name, "educe"):
		return "only the root's recvbuf may be MPI_IN_PLACE"
	case a.Call.Param("root") >= 0:
		return "only the root's sendbuf may be MPI_IN_PLACE"
	}
	return "only the sendbuf may be MPI_IN_PLACE"
}
