package main

// LAMMPS with its OPENMP package (the `-sf omp` styles), which Debian's lmp
// is built without: scripts/lammps-omp builds it from Debian's source
// package into the user's cache. Its row of the table "apps" runs melt at
// 2 ranks of 2 OpenMP threads each; without the build the row is skipped.

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// appLaunch is how an application runs when it is not the default (an
// installed program at 4 ranks).
type appLaunch struct {
	np      int
	env     []string
	program func() (string, error) // its binary, or why it is not there
}

var appLaunches = map[string]appLaunch{}

func init() {
	apps = append(apps, app{name: "lammps-omp", label: "LAMMPS melt, OPENMP styles (`-sf omp`), 2 ranks × 2 threads",
		program: "mpirun.openmpi", args: []string{"-sf", "omp", "-pk", "omp", "2", "-in", "in.melt"},
		inputs: lammpsMelt, pkg: "lammps-examples (and scripts/lammps-omp)",
		build: func(_, _ string) ([]string, error) {
			bin, err := lammpsOmp()
			return []string{bin}, err
		}})
	appLaunches["lammps-omp"] = appLaunch{np: 2, env: []string{"OMP_NUM_THREADS=2"}, program: lammpsOmp}
}

// lammpsOmp is the lmp scripts/lammps-omp builds.
func lammpsOmp() (string, error) {
	dir := os.Getenv("LAMMPS_OMP_DIR")
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(base, "mpivet", "lammps-omp")
	}
	bin := filepath.Join(dir, "bin", "lmp")
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("not built: scripts/lammps-omp builds it into %s", dir)
	}
	if _, err := os.Stat("/usr/share/lammps/examples/melt/in.melt"); err != nil {
		return "", fmt.Errorf("its input is not installed: apt-get install lammps-examples")
	}
	return bin, nil
}

// appSkip says why an application that is not the default cannot run
// here ("" if it can).
func appSkip(a app) string {
	if l, ok := appLaunches[a.name]; ok {
		if _, err := l.program(); err != nil {
			return err.Error()
		}
	}
	return ""
}

// appRanks is the number of ranks an application runs at, and the
// environment it adds.
func appRanks(a app) (string, []string) {
	if l, ok := appLaunches[a.name]; ok {
		return strconv.Itoa(l.np), l.env
	}
	return "4", nil
}
