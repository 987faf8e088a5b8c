package explore

import (
	"strings"
	"testing"

	"mpivet/trace"
)

// A decision file that is cut short, changed, or whose closing line is
// gone or wrong is refused as damaged, and says how.
func TestDecisionsDamaged(t *testing.T) {
	good := "0 1 2 1\n1 0 0 1\n# 2 decisions, crc32c ae335344\n"
	if _, err := parseDecisions("d", []byte(good)); err != nil {
		// the sum above is this file's; recompute it if the format changes
		t.Fatalf("the intact file: %v", err)
	}
	for _, c := range []struct{ name, data, want string }{
		{"empty", "", "closing line"},
		{"cut in the closing line", good[:len(good)-5], "closing line"},
		{"closing line gone", "0 1 2 1\n1 0 0 1\n", "closing line"},
		{"a source changed", strings.Replace(good, "0 1 2 1", "0 1 3 1", 1), "CRC32C"},
		{"a line gone", good[len("0 1 2 1\n"):], "CRC32C"},
		{"count changed", strings.Replace(good, "# 2", "# 3", 1), "closing line says 3"},
		{"not a decision", "x\n# 1 decisions, crc32c 4b0f8c4c\n", "CRC32C"},
	} {
		_, err := parseDecisions("d", []byte(c.data))
		if !trace.IsDamaged(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want damage saying %q", c.name, err, c.want)
		}
	}
}

// Kept decisions that force an event otherwise than the records do are
// refused; records with more events are not.
func TestCheckDecisions(t *testing.T) {
	records := []Decision{{0, 0, 1, trace.WildRecv}, {1, 0, 0, trace.WildAny}, {1, 0, 2, trace.WildAny}}
	if err := CheckDecisions("k", records[:1], records); err != nil {
		t.Errorf("a prefix: %v", err)
	}
	if err := CheckDecisions("k", records, records); err != nil {
		t.Errorf("the same: %v", err)
	}
	other := []Decision{{0, 0, 2, trace.WildRecv}}
	if err := CheckDecisions("k", other, records); !trace.IsDamaged(err) || !strings.Contains(err.Error(), "rank 0's event 0") {
		t.Errorf("another source: %v", err)
	}
	if err := CheckDecisions("k", records[1:2], records); err == nil {
		t.Error("half a Waitsome's decisions accepted")
	}
	if err := CheckDecisions("k", []Decision{{3, 5, 0, 1}}, records); err == nil || !strings.Contains(err.Error(), "nothing") {
		t.Errorf("an event the records lack: %v", err)
	}
}
