package corpus

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Compiling the corpus leaves the source tree as it was: a Fortran
// program with a module (leak_usempi.f90 defines module halo) writes its
// .mod beside the binary, in a temporary directory, not in the working
// directory (corpus/halo.mod was committed by accident once).
func TestCompileLeavesSourceTreeClean(t *testing.T) {
	parallel(t)
	list := func() []string {
		var names []string
		for _, d := range []string{".", filepath.Join("..", "testdata", "programs")} {
			ents, err := os.ReadDir(d)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range ents {
				names = append(names, filepath.Join(d, e.Name()))
			}
		}
		return names
	}
	before := list()
	for _, m := range available(t) {
		bin := filepath.Join(t.TempDir(), "leak_usempi")
		compile(t, m, filepath.Join("..", "testdata", "programs", "leak_usempi.f90"), bin)
		if _, err := os.Stat(filepath.Join(filepath.Dir(bin), "halo.mod")); err != nil {
			t.Errorf("%s: the module is not beside the binary: %v", m.name, err)
		}
	}
	for _, f := range list() {
		if !slices.Contains(before, f) {
			t.Errorf("compiling left %s in the source tree", f)
			os.Remove(f)
		}
	}
}
