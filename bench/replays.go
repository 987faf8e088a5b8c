package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
)

// parallelJobs are the --jobs settings of the table "parallel" ("default":
// mpivet's own choice).
var parallelJobs = []string{"default", "1", "2", "3", "4"}

// roundLine is a line scripts/bench-parallel prints per exploration.
var roundLine = regexp.MustCompile(`^round \d+: native ([0-9.]+) s; mpivet --jobs (\S+) --wait \S+: ([0-9.]+) s wall, .* ([0-9.]+) s wall and [0-9.]+ s CPU each;`)

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

// parallelRows makes the table's rows from scripts/bench-parallel's output.
func parallelRows(out string) [][]string {
	type sample struct{ native, wall, each []float64 }
	by := map[string]*sample{}
	for _, l := range regexp.MustCompile(`\n`).Split(out, -1) {
		m := roundLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		s := by[m[2]]
		if s == nil {
			s = &sample{}
			by[m[2]] = s
		}
		for i, p := range []*[]float64{&s.native, &s.wall, &s.each} {
			v, _ := strconv.ParseFloat(m[[]int{1, 3, 4}[i]], 64)
			*p = append(*p, v)
		}
	}
	med := func(xs []float64) float64 { sort.Float64s(xs); return median(xs) }
	var rows [][]string
	for _, j := range parallelJobs {
		s := by[j]
		if s == nil {
			continue
		}
		label := "mpivet `--jobs " + j + "`"
		if j == "default" {
			label = "mpivet, default"
		}
		rows = append(rows, []string{label, fmt.Sprintf("%.1f s", med(s.wall)), fmt.Sprintf("%.3f s", med(s.each)), fmt.Sprintf("%.2f s", med(s.native))})
	}
	return rows
}
