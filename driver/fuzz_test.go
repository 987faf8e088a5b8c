package driver

import (
	"os"
	"path/filepath"
	"testing"

	"mpivet/trace"
)

// FuzzCommand reads a command record (command.json) as mpivet replay
// does, and validates the options it gives: an error saying it is
// damaged, or options that validate or not, never a panic.
func FuzzCommand(f *testing.F) {
	f.Add([]byte(`{"np": 2, "program": "/bin/true"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		o := Defaults()
		if err := parseCommand("command.json", data, &o); err != nil {
			if !trace.IsDamaged(err) {
				t.Fatalf("not said to be damage: %v", err)
			}
			return
		}
		o.Validate()
	})
}

// FuzzWitness reads a witness (witness.json and its decisions) as mpivet
// replay does: the witness, or an error saying it is damaged, never a
// panic; one it accepts forces as many decisions as it says.
func FuzzWitness(f *testing.F) {
	f.Add([]byte(`{"from":"/r","interleaving":2,"program":"/p","sha256":"0bd6a5af0533d2fbdbfdee9aaab7083d10c257160de266177ab59b48e2eb8911","decisions":0}`),
		[]byte("# 0 decisions, crc32c 00000000\n"))
	f.Fuzz(func(t *testing.T, witness, decisions []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, completeFile), decisions, 0o644); err != nil {
			t.Fatal(err)
		}
		w, err := parseWitness(dir, witness)
		if err != nil {
			if !trace.IsDamaged(err) {
				t.Fatalf("not said to be damage: %v", err)
			}
			return
		}
		if w.Interleaving < 1 || w.Decisions < 0 || len(w.SHA256) != 64 {
			t.Fatalf("accepted: %+v", w)
		}
	})
}
