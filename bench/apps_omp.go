package main

// LAMMPS with its OPENMP package (the `-sf omp` styles), which Debian's lmp
// is built without: scripts/lammps-omp builds it from Debian's source
// package into the user's cache. Its row of the table "apps" runs melt at
// 2 ranks of 2 OpenMP threads each; without the build the row is skipped.

import (
	"fmt"
	"os"
	"path/filepath"
)

func init() {
	apps = append(apps, app{name: "lammps-omp", label: "LAMMPS melt, OPENMP styles (`-sf omp`), 2 ranks × 2 threads",
		program: "lmp", args: []string{"-sf", "omp", "-pk", "omp", "2", "-in", "in.melt"},
		inputs: lammpsMelt, pkg: "lammps-examples", locate: lammpsOmp, ranks: 2, env: []string{"OMP_NUM_THREADS=2"}})
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
	return bin, nil
}
