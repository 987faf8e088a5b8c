package report

import (
	"testing"

	"mpivet/check"
)

func leak(rank int, file string, line int, msg string) check.Finding {
	return check.Finding{Kind: "resource-leak", Severity: check.Error, Ranks: []int{rank}, Message: msg,
		Locations: []check.Location{{Rank: rank, File: file, Line: line, Function: "main", Call: "MPI_Type_vector",
			Module: "/tmp/run1/app", Offset: "0x1234"}}}
}

// A fingerprint is the same in another run (other module paths, messages
// naming other handles or files, another interleaving) and differs with
// the kind, the ranks or the lines.
func TestFingerprint(t *testing.T) {
	a := leak(0, "leak.c", 12, "handle 0x55d0c0ffee")
	b := leak(0, "leak.c", 12, "handle 0x7f00deadbe")
	b.Locations[0].Module, b.Locations[0].Path, b.Interleaving = "/tmp/run2/app", "/elsewhere/leak.c", 7
	if Fingerprint(a) != Fingerprint(b) {
		t.Error("the fingerprint depends on what changes between runs")
	}
	for _, c := range []check.Finding{leak(1, "leak.c", 12, ""), leak(0, "leak.c", 13, ""), leak(0, "other.c", 12, "")} {
		if Fingerprint(c) == Fingerprint(a) {
			t.Errorf("%+v has the fingerprint of %+v", c, a)
		}
	}
	c := a
	c.Kind = "request-lifecycle"
	if Fingerprint(c) == Fingerprint(a) {
		t.Error("the kind is not in the fingerprint")
	}
	// Without lines, the offset in the module tells call sites apart.
	noLine := func(off string) check.Finding {
		return check.Finding{Kind: "k", Ranks: []int{0}, Locations: []check.Location{{Module: "/a/solver", Offset: off, Function: "main"}}}
	}
	if Fingerprint(noLine("0x10")) == Fingerprint(noLine("0x20")) {
		t.Error("two call sites without lines share a fingerprint")
	}
}

// Merge joins one problem said in the same words on several ranks, and
// keeps apart other words or other lines.
func TestMerge(t *testing.T) {
	fs := Merge([]check.Finding{leak(1, "leak.c", 12, "m"), leak(0, "leak.c", 12, "m"), leak(2, "leak.c", 12, "other"),
		leak(3, "leak.c", 14, "m"), {Kind: "deadlock", Severity: check.Warning}})
	if len(fs) != 4 || len(fs[0].Ranks) != 2 || fs[0].Ranks[0] != 0 || fs[0].Ranks[1] != 1 || fs[3].Kind != "deadlock" {
		t.Fatalf("merged: %+v", fs)
	}
	at := func(off string) check.Finding {
		return check.Finding{Kind: "k", Severity: check.Error, Message: "m", Ranks: []int{0},
			Locations: []check.Location{{Module: "/a/solver", Offset: off, Function: "main"}}}
	}
	if fs := Merge([]check.Finding{at("0x10"), at("0x20")}); len(fs) != 2 {
		t.Errorf("two call sites without lines merged into %d findings", len(fs))
	}
}

// Findings keeps one finding per fingerprint across interleavings: the
// first, with its interleaving.
func TestFindingsAcrossInterleavings(t *testing.T) {
	var s Findings
	if fresh := s.Add(1, []check.Finding{leak(0, "leak.c", 12, "3 objects")}); len(fresh) != 1 || fresh[0].Interleaving != 1 || fresh[0].Fingerprint == "" {
		t.Fatalf("first: %+v", fresh)
	}
	if fresh := s.Add(2, []check.Finding{leak(0, "leak.c", 12, "4 objects"), leak(1, "leak.c", 12, "3 objects")}); len(fresh) != 1 || fresh[0].Ranks[0] != 1 {
		t.Fatalf("second: %+v", fresh)
	}
	if len(s.List) != 2 || s.List[0].Interleaving != 1 || s.List[1].Interleaving != 2 {
		t.Fatalf("all: %+v", s.List)
	}
}
