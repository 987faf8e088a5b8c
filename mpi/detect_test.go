package mpi

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestToolsCached checks that the compiler wrapper's and launcher's
// answers are kept with the headers mpi.h read as dependencies, used
// again while the key is unchanged, and asked again when it changes.
func TestToolsCached(t *testing.T) {
	for _, impl := range []Impl{OpenMPI, MPICH} {
		t.Run(string(impl), func(t *testing.T) {
			cache := t.TempDir()
			t.Setenv("MPIVET_CACHE", cache)
			a, err := installed(impl)
			if err != nil {
				t.Skipf("%s: %v", impl, err)
			}
			if a.CC == "" || a.Launcher == "" || !strings.HasPrefix(a.Version, impl.Pretty()) || a.Show == "" {
				t.Fatalf("probed: %+v", a)
			}
			entries, _ := filepath.Glob(filepath.Join(cache, "probe-mpitools-*"))
			if len(entries) != 1 {
				t.Fatalf("cache entries %v, want one", entries)
			}
			var e map[string]json.RawMessage
			data, _ := os.ReadFile(entries[0])
			json.Unmarshal(data, &e)
			if !strings.Contains(string(e["deps"]), `/mpi.h"`) {
				t.Errorf("the entry's dependencies do not name mpi.h: %s", e["deps"])
			}
			// Marked: served from the cache, the answer says so.
			e["answer"], _ = json.Marshal(tools{a.CC, a.Launcher, "marked", a.Show})
			data, _ = json.Marshal(e)
			os.WriteFile(entries[0], data, 0o600)
			if b, err := installed(impl); err != nil || b.Version != "marked" {
				t.Errorf("key unchanged: %+v, %v; want the cached answer", b, err)
			}
			t.Setenv("MPICH_MPIVET_TEST", "1") // one of the wrappers' variables: part of the key
			t.Setenv("OMPI_MPIVET_TEST", "1")
			if c, err := installed(impl); err != nil || c.Version != a.Version || c.CC != a.CC {
				t.Errorf("key changed: %+v, %v; want the tools asked again (%+v)", c, err, a)
			}
		})
	}
}
