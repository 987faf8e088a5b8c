package driver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mpivet/explore"
	"mpivet/trace/tracetest"
)

// A replay checks the binary against the SHA-256 the command record
// keeps: the same binary passes, a changed one is refused, and a record
// without the hash (an older one, or edited) gets a loud warning.
func TestRecordedBinary(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "app")
	os.WriteFile(prog, []byte("binary 1"), 0o755)
	o := Defaults()
	o.Program, o.NP = prog, 2
	if err := saveCommand(dir, o); err != nil {
		t.Fatal(err)
	}
	var said []string
	notify := func(s string) { said = append(said, s) }
	if err := checkRecordedBinary(dir, prog, notify); err != nil || len(said) > 0 {
		t.Errorf("the same binary: %v %q", err, said)
	}
	os.WriteFile(prog, []byte("binary 2"), 0o755)
	if err := checkRecordedBinary(dir, prog, notify); err == nil || !strings.Contains(err.Error(), "is not the binary the run in") {
		t.Errorf("a changed binary: %v", err)
	}
	os.Remove(prog)
	if err := checkRecordedBinary(dir, prog, notify); err == nil || !strings.Contains(err.Error(), "--program PATH") {
		t.Errorf("a missing binary: %v", err)
	}
	os.WriteFile(filepath.Join(dir, commandFile), []byte(`{"program": "`+prog+`", "np": 2}`), 0o644)
	if err := checkRecordedBinary(dir, prog, notify); err != nil || len(said) != 1 || !strings.HasPrefix(said[0], "WARNING: cannot check that") {
		t.Errorf("a record without the hash: %v %q", err, said)
	}
}

// A hand-edited np is checked against the records of the interleaving
// (the size of MPI_COMM_WORLD every rank recorded), or, where the records
// are gone (a replay without findings, a witness), against the ranks its
// decisions force.
func TestReplayRanksChecked(t *testing.T) {
	dir := t.TempDir()
	for r := 0; r < 2; r++ {
		os.WriteFile(filepath.Join(dir, "p.testhost."+string(rune('1'+r))+".log"), tracetest.New(r, 2).Bytes(), 0o644)
	}
	if _, err := replayDecisions(dir, 1, 2); err != nil {
		t.Errorf("np as recorded: %v", err)
	}
	if _, err := replayDecisions(dir, 1, 3); err == nil || !strings.Contains(err.Error(), "np is 3, but the records of interleaving 1 are of 2 ranks") {
		t.Errorf("np edited: %v", err)
	}
	w := t.TempDir()
	explore.WriteDecisions(filepath.Join(w, completeFile), []explore.Decision{{Rank: 3, Event: 0, Source: 1}})
	if _, err := replayDecisions(w, 1, 4); err != nil {
		t.Errorf("a witness, np as recorded: %v", err)
	}
	if _, err := replayDecisions(w, 1, 2); err == nil || !strings.Contains(err.Error(), "np is 2, but interleaving 1 forces a match of rank 3") {
		t.Errorf("a witness, np edited: %v", err)
	}
}
