package layer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestVerifyHashesChangedArtifact checks that a cached build's hashes are
// checked once, not again while its artifacts are unchanged, and again
// (and found wrong) once an artifact was rewritten, even with its size
// and modification time kept.
func TestVerifyHashesChangedArtifact(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "build")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, a := range artifacts {
		os.WriteFile(filepath.Join(dir, a), []byte("built "+a), 0o700)
	}
	if err := writeManifest(dir, "mpicc", "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := verify(dir); err != nil {
		t.Fatalf("fresh build: %v", err)
	}
	if len(readChecked(dir)) != len(artifacts) {
		t.Fatalf("%s records %v, want every artifact", checkedName, readChecked(dir))
	}
	if _, err := verify(dir); err != nil {
		t.Fatalf("unchanged build: %v", err)
	}
	lib := filepath.Join(dir, "libmpivet.so")
	fi, _ := os.Stat(lib)
	os.WriteFile(lib, []byte("BUILT libmpivet.so"), 0o700) // same size
	os.Chtimes(lib, time.Now(), fi.ModTime())
	if _, err := verify(dir); err == nil || !strings.Contains(err.Error(), "sha256 differs") {
		t.Fatalf("rewritten artifact: %v, want its hash found wrong", err)
	}
}
