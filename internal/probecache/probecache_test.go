package probecache

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestChangedKeyProbesAgain checks that an answer is found again under an
// unchanged key, and not once a text, a variable, a file of the key or a
// file the probe depended on changes.
func TestChangedKeyProbesAgain(t *testing.T) {
	dir := t.TempDir()
	tool, dep := filepath.Join(dir, "tool"), filepath.Join(dir, "mpi.h")
	os.WriteFile(tool, []byte("v1"), 0o600)
	os.WriteFile(dep, []byte("#define X 1"), 0o600)
	t.Setenv("PROBE_TEST_VAR", "a")
	key := func(text string) *Key {
		k := New("test")
		k.Text(text)
		k.File(tool)
		k.Env([]string{"PATH"}, []string{"PROBE_TEST_"})
		return k
	}
	Put(dir, key("x"), "answer", []string{dep})
	var got string
	if !Get(dir, key("x"), &got) || got != "answer" {
		t.Fatalf("unchanged key: %q, want the stored answer", got)
	}
	if Get(dir, key("y"), &got) {
		t.Error("a changed text found the old answer")
	}
	t.Setenv("PROBE_TEST_VAR", "b")
	if Get(dir, key("x"), &got) {
		t.Error("a changed variable found the old answer")
	}
	t.Setenv("PROBE_TEST_VAR", "a")
	// Same size, same modification time: the status-change time differs.
	mt := time.Now().Add(-time.Hour)
	os.Chtimes(tool, mt, mt)
	k := key("x")
	Put(dir, k, "answer", []string{dep})
	os.WriteFile(tool, []byte("v2"), 0o600)
	os.Chtimes(tool, mt, mt)
	if Get(dir, key("x"), &got) {
		t.Error("a rewritten file of the key (same size and time) found the old answer")
	}
	Put(dir, key("x"), "answer", []string{dep})
	os.WriteFile(dep, []byte("#define X 2"), 0o600)
	if Get(dir, key("x"), &got) {
		t.Error("a changed file the probe depended on found the old answer")
	}
	os.Remove(dep)
	if Get(dir, key("x"), &got) {
		t.Error("a removed file the probe depended on found the old answer")
	}
}
