package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mpivet/api"
)

// TestGolden fails when the checked-in generated code is not what the
// generator makes from api/mpi.api: run `go generate ./layer`.
func TestGolden(t *testing.T) {
	for path, want := range Generate(api.MPI) {
		got, err := os.ReadFile(filepath.Join("..", "..", path))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is out of date: run go generate ./layer", path)
		}
	}
}

func TestEveryCallWrapped(t *testing.T) {
	src := string(Generate(api.MPI)["layer/src/generated/wrappers.c"])
	for _, c := range api.MPI.Calls {
		if !strings.Contains(src, "\nint "+c.Name+"(") {
			t.Errorf("no C wrapper for %s", c.Name)
		}
		lower := strings.ToLower(c.Name)
		if !c.Has("nofortran") && !strings.Contains(src, "\nvoid "+lower+"_(") {
			t.Errorf("no Fortran wrapper for %s", c.Name)
		}
	}
}
