#!/bin/sh
# A small test suite of LAMMPS examples (Debian's lammps, lammps-examples):
# each runs on 2 ranks for 200 steps, in a copy of its directory in ./work
# given to mpirun with -wdir, and prints PASS or FAIL as a test suite does.
#   mpivet exec --budget 60s -- examples/lammps_suite.sh
fail=0
for t in melt/in.melt min/in.min crack/in.crack indent/in.indent friction/in.friction flow/in.flow.couette obstacle/in.obstacle shear/in.shear; do
	d=$PWD/work/$(dirname "$t"); rm -rf "$d"; mkdir -p work; cp -r "/usr/share/lammps/examples/$(dirname "$t")" "$d"; sed -i -E "s/^(run\s+)[0-9]+/\1200/" "$d/$(basename "$t")"
	if mpirun -np 2 -wdir "$d" lmp -log none -screen none -in "$(basename "$t")"; then echo "PASS $t"; else echo "FAIL $t"; fail=1; fi
done
exit $fail
