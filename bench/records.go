package main

// The table "records": the bytes of records a run leaves, with a rank's
// repeated records folded (--records=fold, the default) and without
// (--records=full), and the records per rank and iteration.

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"

	"mpivet/driver"
	"mpivet/trace"
)

// recordRuns are the programs of the table "records".
var recordRuns = []struct {
	label string
	b     benchmark
	iters int // of the loop, for the bytes per rank and iteration
}{
	{"halo exchange, 64x64, 3,000 iterations, 4 ranks", benchmark{"records-halo", "halo.c", "", 4, []string{"64", "3000"}, "", "", false, ""}, 3000},
	{"the same, 6,000 iterations", benchmark{"records-halo-2", "halo.c", "", 4, []string{"64", "6000"}, "", "", false, ""}, 6000},
	{"`rma_ops`, 100,000 operations, lock epochs, 2 ranks", benchmark{"records-rma", "rma_ops.c", "", 2, []string{"100000", "lock"}, "", "off", false, ""}, 100000},
}

// runRecords measures the table "records" under each MPI: each program
// once with --records=full and once with the default.
func runRecords(work string, mpis []string) [][]string {
	names := map[string]string{"openmpi": "Open MPI", "mpich": "MPICH"}
	var rows [][]string
	for _, m := range mpis {
		for _, r := range recordRuns {
			bin := filepath.Join(work, r.b.name+"-"+m)
			if out, err := exec.Command(compilers[m], "-O2", "-o", bin, filepath.Join(sourceDir(), r.b.src)).CombinedOutput(); err != nil {
				fail(fmt.Errorf("%s: %v\n%s", compilers[m], err, out))
			}
			full := recordBytes(r.b, bin, launchers[m], "full", filepath.Join(work, r.b.name+"-"+m+"-full"))
			fold := recordBytes(r.b, bin, launchers[m], "fold", filepath.Join(work, r.b.name+"-"+m+"-fold"))
			per := func(n int64) string {
				return strconv.FormatFloat(float64(n)/float64(int64(r.b.np)*int64(r.iters)), 'f', 1, 64)
			}
			rows = append(rows, []string{r.label, names[m], mib(full), per(full) + " B", mib(fold), per(fold) + " B",
				fmt.Sprintf("%.0f×", float64(full)/float64(fold))})
		}
	}
	return rows
}

func mib(n int64) string { return fmt.Sprintf("%.2f MB", float64(n)/1e6) }

// recordBytes runs b once under mpivet's layer with --records=how and
// returns the bytes of records of all its ranks.
func recordBytes(b benchmark, bin, launcher, how, dir string) int64 {
	var buf bytes.Buffer
	_, run, err := prepareWith(b, bin, launcher, &buf, func(o *driver.Options) { o.Records = how })
	if err != nil {
		fail(err)
	}
	if res, err := run(dir, driver.RunFiles{}); err != nil || res.LauncherExit != 0 {
		fail(fmt.Errorf("%s --records=%s: %v\n%s", b.name, how, err, buf.String()))
	}
	r, err := trace.ReadRun(dir)
	if err != nil {
		fail(err)
	}
	var n int64
	for _, p := range r.Procs {
		n += p.End
	}
	return n
}
