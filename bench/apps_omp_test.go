package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The row of LAMMPS with OPENMP is skipped, saying how to build it, until
// scripts/lammps-omp has put lmp in the cache it names; then it runs at
// 2 ranks with 2 OpenMP threads each. Other applications are looked up on
// PATH and run at 4 ranks.
func TestLammpsOmpApp(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("LAMMPS_OMP_DIR", dir)
	var a app
	for _, x := range apps {
		if x.name == "lammps-omp" {
			a = x
		}
	}
	if a.name == "" {
		t.Fatal("no application lammps-omp")
	}
	if why := a.missing(); !strings.Contains(why, "scripts/lammps-omp") {
		t.Fatalf("without the build: %q, want a message naming scripts/lammps-omp", why)
	}
	bin := filepath.Join(dir, "bin", "lmp")
	os.MkdirAll(filepath.Dir(bin), 0o755)
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("/usr/share/lammps/examples/melt/in.melt"); err == nil {
		if why := a.missing(); why != "" {
			t.Errorf("with the build: skipped (%s)", why)
		}
		if got, err := a.command(t.TempDir()); err != nil || got[0] != bin {
			t.Errorf("with the build: %q, %v, want %s first", got, err, bin)
		}
	}
	if a.ranks != 2 || strings.Join(a.env, " ") != "OMP_NUM_THREADS=2" {
		t.Errorf("ranks %d, environment %q", a.ranks, a.env)
	}
	if a := apps[0]; a.ranks != 0 || a.env != nil {
		t.Errorf("%s: ranks %d (0: 4), environment %q", a.name, a.ranks, a.env)
	}
}

// ompRun reads the program's times per iteration and counts the CPU of
// what it started.
func TestOmpRun(t *testing.T) {
	s, _, err := ompRun([]string{"sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; echo 'RESULT iter_us=12.5 cpu_iter_us=40.25 threads=4'"}, os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	if s.iterUs != 12.5 || s.cpuIterUs != 40.25 || s.cpu <= 0 {
		t.Errorf("sample %+v", s)
	}
	if _, _, err := ompRun([]string{"sh", "-c", "echo RESULT"}, os.Environ()); err == nil {
		t.Error("no error for an output without the times")
	}
}
