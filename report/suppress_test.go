package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mpivet/check"
)

func TestSuppressions(t *testing.T) {
	file := filepath.Join(t.TempDir(), "supp")
	os.WriteFile(file, []byte(`# known problems
kind=buffer-reuse file=halo.c:42 reason="fixed upstream in v2"
kind=deadlock function=exchange reason=ticket-12
fingerprint=0000000000000000 reason="gone long ago"
kind=* file=/src/lib/vendor.c reason=vendored
`), 0o644)
	ss, err := ReadSuppressions(file)
	if err != nil {
		t.Fatal(err)
	}
	loc := func(file string, line int, fn string) []check.Location {
		return []check.Location{{Rank: 0, File: file, Line: line, Function: fn, Path: "/src/" + file}}
	}
	fs := []check.Finding{
		{Kind: "buffer-reuse", Severity: check.Error, Ranks: []int{0}, Locations: loc("halo.c", 42, "main")},
		{Kind: "buffer-reuse", Severity: check.Error, Ranks: []int{0}, Locations: loc("halo.c", 43, "main")}, // the neighbour
		{Kind: "deadlock", Severity: check.Error, Ranks: []int{0, 1}, Locations: loc("x.c", 1, "exchange")},
		{Kind: "resource-leak", Severity: check.Warning, Ranks: []int{1}, Locations: loc("lib/vendor.c", 7, "f")},
		{Kind: "resource-leak", Severity: check.Warning, Ranks: []int{1}, Locations: loc("main.c", 7, "f")},
	}
	r := New(fs, "")
	r.Suppress(ss)
	if len(r.Findings) != 2 || r.Findings[0].Locations[0].Line != 43 || r.Findings[1].Locations[0].File != "main.c" {
		t.Errorf("left: %+v", r.Findings)
	}
	if len(r.Suppressed) != 3 || r.Suppressed[0].Reason != "fixed upstream in v2" || r.Suppressed[1].By != file+":3" {
		t.Errorf("suppressed: %+v", r.Suppressed)
	}
	if len(r.Unused) != 1 || !strings.Contains(r.Unused[0], file+":4: fingerprint=0000000000000000") {
		t.Errorf("unused: %q", r.Unused)
	}
	if r.Verdict != "error" {
		t.Errorf("verdict %s", r.Verdict)
	}
	var b bytes.Buffer
	NewText(&b, false).Print(r)
	for _, want := range []string{"suppressed: 3 findings (2 errors), not counted in the verdict", "unused suppression: " + file + ":4"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the text report lacks %q:\n%s", want, b.String())
		}
	}
	// Only suppressed errors left: the verdict is ok.
	r = New(fs[:1], "")
	r.Suppress(ss)
	if r.Verdict != "ok" || r.ExitCode() != ExitOK {
		t.Errorf("verdict %s", r.Verdict)
	}
}

func TestSuppressionErrors(t *testing.T) {
	for _, line := range []string{"kind=deadlock", "reason=x", "kind=deadlock reason=\"open", "colour=red kind=x reason=y", "deadlock"} {
		if _, err := parseSuppression(line); err == nil {
			t.Errorf("%q is accepted", line)
		}
	}
}
