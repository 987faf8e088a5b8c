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
// (their logs end with the overflow mark), or were read only in part
// because the run was stopped (Process.Cut: reading the records of a run
// mpivet stops is bounded in time), and what of the run is therefore not
// checked; "" if none.
func truncated(r *trace.Run, n int, bound string, interrupted bool) string {
	if r == nil {
		return ""
	}
	var over, cut, calls []string
	for _, p := range r.Procs {
		switch {
		case p.Cut:
			cut = append(cut, strconv.Itoa(p.Rank))
			calls = append(calls, strconv.Itoa(p.NumCalls))
		case p.Overflow:
			over = append(over, strconv.Itoa(p.Rank))
		}
	}
	unchecked := "so they were not checked, nor was how the run ended (deadlocks, leaks, messages never received, requests and epochs left open)"
	if len(cut) > 0 {
		when := "the run reached its time limit"
		if interrupted {
			when = "the interrupt"
		}
		return fmt.Sprintf("the records of %s in interleaving %d were read in part after %s (their first %s MPI calls: "+
			"reading the records of a run mpivet stops is bounded in time): the calls recorded after those were not read, %s",
			ranks(cut), n, when, strings.Join(calls, ", "), unchecked)
	}
	if len(over) == 0 {
		return ""
	}
	return fmt.Sprintf("the records of %s reached --max-records=%s in interleaving %d: their MPI calls after that were not recorded, %s",
		ranks(over), bound, n, unchecked)
}

// ranks is "rank 3" or "ranks 0, 1".
func ranks(rs []string) string {
	if len(rs) == 1 {
		return "rank " + rs[0]
	}
	return "ranks " + strings.Join(rs, ", ")
}
