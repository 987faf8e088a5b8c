package driver

import (
	"strings"
	"testing"

	"mpivet/trace"
)

func TestParseSize(t *testing.T) {
	for s, want := range map[string]uint64{"256MiB": 256 << 20, "1GiB": 1 << 30, "64M": 64 << 20, "2g": 2 << 30, "1048576": 1 << 20, "512KiB": 0, "": 0, "x": 0, "12MB": 12 << 20} {
		got, err := ParseSize(s)
		if want == 0 {
			if err == nil {
				t.Errorf("ParseSize(%q) = %d, want an error", s, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
}

// A rank whose records were read only in part after an interrupt is named
// with the calls read, not as one that reached --max-records; one that
// reached the bound is named with it.
func TestTruncatedSaysWhatWasRead(t *testing.T) {
	cut := &trace.Run{Procs: []*trace.Process{{Rank: 0, NumCalls: 41093, Cut: true, Overflow: true}, {Rank: 1, NumCalls: 7}}}
	got := truncated(cut, 1, "1GiB", true)
	if !strings.Contains(got, "records of rank 0 in interleaving 1 were read in part after the interrupt (their first 41093 MPI calls") ||
		strings.Contains(got, "max-records") || strings.Contains(got, "rank 1") {
		t.Errorf("cut reading: %q", got)
	}
	over := &trace.Run{Procs: []*trace.Process{{Rank: 0, Overflow: true}, {Rank: 1, Overflow: true}}}
	if got := truncated(over, 2, "4MiB", false); !strings.Contains(got, "records of ranks 0, 1 reached --max-records=4MiB in interleaving 2") {
		t.Errorf("bound reached: %q", got)
	}
	if got := truncated(&trace.Run{Procs: []*trace.Process{{Rank: 0}}}, 1, "1GiB", true); got != "" {
		t.Errorf("whole records: %q", got)
	}
}
