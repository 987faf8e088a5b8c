package explore

import (
	"path/filepath"
	"reflect"
	"testing"

	"mpivet/trace"
)

// FuzzDecisions reads a decision file: decisions, or an error saying it
// is damaged, never a panic; decisions it accepts write back as the same.
func FuzzDecisions(f *testing.F) {
	f.Add([]byte("# 0 decisions, crc32c 00000000\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ds, err := parseDecisions("decisions", data)
		if err != nil {
			if !trace.IsDamaged(err) {
				t.Fatalf("not said to be damage: %v", err)
			}
			return
		}
		path := filepath.Join(t.TempDir(), "decisions")
		if err := WriteDecisions(path, ds); err != nil {
			t.Fatal(err)
		}
		back, err := ReadDecisions(path)
		if err != nil || len(back) != len(ds) || (len(ds) > 0 && !reflect.DeepEqual(back, inOrder(ds))) {
			t.Fatalf("written back: %v, %v; read %v", back, err, ds)
		}
	})
}
