package report

import (
	"os"
	"path/filepath"
	"testing"

	"mpivet/check"
)

// FuzzSuppressions reads a suppression file (mpivet run --suppressions):
// suppressions, or an error naming the line that is wrong, never a
// panic; what it accepts can be matched against a finding.
func FuzzSuppressions(f *testing.F) {
	f.Add([]byte("kind=buffer-reuse file=halo.c:42 reason=\"fixed upstream in v2\"\n"))
	finding := check.Finding{Kind: "deadlock", Message: "m", Ranks: []int{0, 1},
		Locations: []check.Location{{Rank: 0, File: "halo.c", Line: 42, Function: "exchange", Path: "/src/halo.c"}}}
	finding.Fingerprint = Fingerprint(finding)
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), DefaultSuppressions)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ss, err := ReadSuppressions(path)
		if err != nil {
			return
		}
		for _, s := range ss {
			s.Matches(finding)
		}
	})
}
