// Package typematch defines the check of point-to-point type matching.
package typematch

import (
	"embed"
	"fmt"

	"mpivet/api"
	"mpivet/check"
	"mpivet/trace"
)

// The check's documentation: type-mismatch.md is its Doc, and every other
// KIND.md explains a kind (mpivet explain KIND, docs/checks.md).
//
//go:embed *.md
var docFiles embed.FS

var checkDoc, kindDocs = check.Docs(docFiles, "type-mismatch")

// Check reports messages received with another type signature than sent.
var Check = &check.Check{
	Name:     "type-mismatch",
	Kinds:    []string{"type-mismatch"},
	Doc:      checkDoc,
	KindDocs: kindDocs,
	Run:      run,
}

func run(pass *check.Pass) (any, error) {
	for _, p := range pass.In.Run.Procs {
		for _, m := range p.Types {
			recv := at(pass, p, m.RecvPC, "the receive")
			locs := []check.Location{recv}
			ranks := []int{p.Rank}
			if s := pass.In.Run.Rank(m.World); s != nil {
				locs = append(locs, at(pass, s, m.SendPC, "the send"))
				ranks = append(ranks, m.World)
			}
			pass.Report(check.Finding{
				Kind:  "type-mismatch",
				Ranks: ranks,
				Message: fmt.Sprintf("rank %d receives as %s a message of %d bytes that rank %d sent as %s (tag %d)",
					p.Rank, Describe(m.RecvSig), m.Bytes, m.World, Describe(m.SendSig), m.Tag),
				Locations: locs,
			})
		}
	}
	declared(pass)
	return nil, nil
}

func at(pass *check.Pass, p *trace.Process, pc uint64, note string) check.Location {
	l := check.Location{Rank: p.Rank, Note: note}
	if pass.In.Sym != nil {
		l.SetSource(pass.In.Sym.Lookup(p.Maps, pc))
	}
	return l
}

// Basic type classes of a signature word (api.Sig*, written by layer/src/signatures).
const (
	classByte    = api.SigByte
	classPacked  = api.SigPacked
	classChar    = api.SigChar
	classInt     = api.SigInt
	classUint    = api.SigUint
	classFloat   = api.SigFloat
	classComplex = api.SigComplex
	classBool    = api.SigBool
	classLogical = api.SigLogical
	classWchar   = api.SigWchar
	classPair    = api.SigPair
)

var pairs = []string{"MPI_FLOAT_INT", "MPI_DOUBLE_INT", "MPI_LONG_INT", "MPI_2INT", "MPI_SHORT_INT", "MPI_LONG_DOUBLE_INT"}

// Describe names the data a signature word stands for.
func Describe(sig uint64) string {
	if sig&api.SigMixed != 0 {
		return fmt.Sprintf("a derived type mixing basic types (signature %04x)", sig&0xffff)
	}
	class, size := int(sig>>8), int(sig&0xff)
	switch class {
	case classByte:
		return "MPI_BYTE"
	case classPacked:
		return "MPI_PACKED"
	case classChar:
		return "characters (MPI_CHAR)"
	case classWchar:
		return "wide characters (MPI_WCHAR)"
	case classInt:
		return sized("signed integers", size, map[int]string{1: "MPI_INT8_T", 2: "MPI_SHORT", 4: "MPI_INT", 8: "MPI_LONG"})
	case classUint:
		return sized("unsigned integers", size, map[int]string{1: "MPI_UINT8_T", 2: "MPI_UNSIGNED_SHORT", 4: "MPI_UNSIGNED", 8: "MPI_UNSIGNED_LONG"})
	case classFloat:
		return sized("floating point", size, map[int]string{4: "MPI_FLOAT", 8: "MPI_DOUBLE", 16: "MPI_LONG_DOUBLE"})
	case classComplex:
		return fmt.Sprintf("%d-byte complex numbers", size)
	case classBool:
		return "MPI_C_BOOL"
	case classLogical:
		return "MPI_LOGICAL"
	case classPair:
		if size < len(pairs) {
			return pairs[size]
		}
	}
	return fmt.Sprintf("basic type %d of %d bytes", class, size)
}

// sized describes a basic type by size, with the usual C name of that size.
func sized(what string, size int, names map[int]string) string {
	if n, ok := names[size]; ok {
		return fmt.Sprintf("%d-byte %s (%s)", size, what, n)
	}
	return fmt.Sprintf("%d-byte %s", size, what)
}
