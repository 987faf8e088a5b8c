package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"mpivet/check"
)

// Fingerprint is a finding's identity, the same in every run of the same
// program: its kind, its ranks, and the symbolised locations it points at
// (rank, file, line, function and MPI call; without debug information the
// module's base name and the offset in it, or the ELF symbol), hashed. It
// leaves out what changes from run to run (addresses, handles, run
// directories, the message's wording) and the interleaving. Findings with
// one fingerprint are one finding: Findings keeps the first.
func Fingerprint(f check.Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\x00%v", f.Kind, f.Ranks)
	for _, l := range f.Locations {
		fmt.Fprintf(&b, "\x00%d %s:%d %s %s", l.Rank, l.File, l.Line, l.Function, l.Call)
		if l.File == "" { // no line: the address tells call sites apart
			fmt.Fprintf(&b, " %s+%s %s", filepath.Base(l.Module), l.Offset, l.Symbol)
		}
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:8])
}

// Merge joins the findings of one execution that differ only in the rank
// they occurred on (the same problem, said in the same words, at the same
// source lines on many ranks: the fingerprint with the ranks left out), and
// sorts them: errors first, then by kind and first rank.
func Merge(fs []check.Finding) []check.Finding {
	type key struct{ fp, sev, msg string }
	index := map[key]int{}
	var out []check.Finding
	for _, f := range fs {
		k := key{Fingerprint(rankless(f)), string(f.Severity), f.Message}
		i, ok := index[k]
		if !ok {
			index[k] = len(out)
			f.Ranks = append([]int(nil), f.Ranks...)
			out = append(out, f)
			continue
		}
		out[i].Ranks = unionInts(out[i].Ranks, f.Ranks)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Severity != b.Severity {
			return a.Severity == check.Error
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return firstInt(a.Ranks) < firstInt(b.Ranks)
	})
	return out
}

// rankless is f without its ranks, for Merge.
func rankless(f check.Finding) check.Finding {
	f.Ranks = nil
	f.Locations = append([]check.Location(nil), f.Locations...)
	for i := range f.Locations {
		f.Locations[i].Rank = 0
	}
	return f
}

// Findings gathers the findings of the executions of an exploration, one
// per fingerprint, in the order they were first found.
type Findings struct {
	List []check.Finding
	seen map[string]bool
}

// Add adds the merged findings of interleaving n (see Merge) and returns
// those that are new, with their Interleaving and Fingerprint set.
func (s *Findings) Add(n int, fs []check.Finding) []check.Finding {
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	var fresh []check.Finding
	for _, f := range fs {
		f.Interleaving = n
		f.Fingerprint = Fingerprint(f)
		if s.seen[f.Fingerprint] {
			continue
		}
		s.seen[f.Fingerprint] = true
		s.List = append(s.List, f)
		fresh = append(fresh, f)
	}
	return fresh
}

func unionInts(a, b []int) []int {
	seen := map[int]bool{}
	var out []int
	for _, x := range append(append([]int(nil), a...), b...) {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Ints(out)
	return out
}

func firstInt(a []int) int {
	if len(a) == 0 {
		return -1
	}
	return a[0]
}
