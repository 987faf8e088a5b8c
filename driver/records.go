package driver

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"mpivet/trace"
)

// defaultMaxRecords bounds what one rank records in one run: a program
// that makes millions of MPI calls (one-sided operations in a loop, a
// polling loop the layer logs) cannot fill the disk, and mpivet reads
// every rank's records of a run, so it also bounds the analysis. Most
// programs write a few MiB per rank; a long run of small exchanges some
// 160 bytes per call (2,000,000 calls: 320 MiB), which must still be
// checked whole.
const defaultMaxRecords = "1GiB"

// ParseSize reads a size: a number of bytes, or with a unit K, M, G, T
// (powers of 1024; KiB, KB, k ... are the same).
func ParseSize(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	u := strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(t), "B"), "I")
	shift := 0
	if n := len(u); n > 0 {
		if i := strings.IndexByte("KMGT", u[n-1]); i >= 0 {
			shift, u = 10*(i+1), u[:n-1]
		}
	}
	v, err := strconv.ParseUint(strings.TrimSpace(u), 10, 64)
	if err != nil || t == "" {
		return 0, errors.New("a size is a number of bytes, or of KiB, MiB, GiB (e.g. 256MiB)")
	}
	if v<<shift>>shift != v {
		return 0, errors.New("too large")
	}
	v <<= shift
	if v < 1<<20 {
		return 0, errors.New("at least 1MiB")
	}
	return v, nil
}

// truncated says which ranks of run r reached the bound on their records
// (their logs end with the overflow mark), and what of the run is
// therefore not checked; "" if none did.
func truncated(r *trace.Run, n int, bound string) string {
	if r == nil {
		return ""
	}
	var ranks []string
	for _, p := range r.Procs {
		if p.Overflow {
			ranks = append(ranks, strconv.Itoa(p.Rank))
		}
	}
	if len(ranks) == 0 {
		return ""
	}
	what := "rank " + ranks[0]
	if len(ranks) > 1 {
		what = "ranks " + strings.Join(ranks, ", ")
	}
	return fmt.Sprintf("the records of %s reached --max-records=%s in interleaving %d: their MPI calls after that were not recorded, "+
		"so they were not checked, nor was how the run ended (deadlocks, leaks, messages never received, requests and epochs left open)",
		what, bound, n)
}
