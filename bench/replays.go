package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
)

// parallelJobs are the --jobs settings of the table "parallel" ("default":
// mpivet's own choice).
var parallelJobs = []string{"default", "1", "2", "3", "4"}

// runParallel measures the table "parallel": scripts/bench-parallel's
// full exploration of the master/worker program (Open MPI, 4 ranks, 6
// tasks) with each --jobs of parallelJobs, reps rounds, a native run
// beside each; the medians over the rounds.
func runParallel(reps int) [][]string {
	root := filepath.Join(sourceDir(), "..", "..")
	cmd := exec.Command(filepath.Join(root, "scripts", "bench-parallel"), append([]string{strconv.Itoa(reps)}, parallelJobs...)...)
	cmd.Dir, cmd.Stderr = root, os.Stderr
	out, err := cmd.Output()
	os.Stdout.Write(out)
	if err != nil {
		fail(fmt.Errorf("scripts/bench-parallel: %v", err))
	}
	return parallelRows(string(out))
}

// parallelRows makes the table's rows from scripts/bench-parallel's output:
// the medians of each --jobs over the rounds.
func parallelRows(out string) [][]string {
	rs := parseRounds(out)
	var rows [][]string
	for _, j := range parallelJobs {
		of := pick(rs, j, "")
		if len(of) == 0 {
			continue
		}
		label := "mpivet `--jobs " + j + "`"
		if j == "default" {
			label = "mpivet, default"
		}
		rows = append(rows, []string{label, fmt.Sprintf("%.1f s", medianOf(of, wallOf)),
			fmt.Sprintf("%.3f s", medianOf(of, func(r round) float64 { return r.each })),
			fmt.Sprintf("%.2f s", medianOf(of, func(r round) float64 { return r.native }))})
	}
	return rows
}
