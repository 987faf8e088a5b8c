package layer

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestHeapTable builds the layer's allocator (src/heap/alloc.c) with a
// driver of its own (testdata/heap/driver.c) and runs it: blocks found by
// their start and by interior addresses (small ones by probing, large ones
// in the sorted copy), the stack and globals in no block, freed blocks
// quarantined (small) or forgotten (large), realloc, threads and fork.
// mpi.h is the MPI-free one of testdata/nofortran.
func TestHeapTable(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler")
	}
	bin := filepath.Join(t.TempDir(), "heap")
	cc := exec.Command("cc", "-O2", "-Wall", "-I", filepath.Join("testdata", "nofortran"), "-o", bin,
		filepath.Join("testdata", "heap", "driver.c"), filepath.Join("src", "heap", "alloc.c"), "-ldl", "-pthread")
	if out, err := cc.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a lock held across malloc hangs
	defer cancel()
	if out, err := exec.CommandContext(ctx, bin).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
