package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"time"
)

// slackBench is a program whose whole default mpivet run is timed with and
// without the buffering-aware exploration (--slack=minimal, the default,
// against --slack=off: seed 001's POE_MSE against POE), alternately.
type slackBench struct {
	name, src string
	np        int
	args      []string
}

var slackBenches = []slackBench{
	// wildcard receives whose matches need no slack: the cost of asking
	{"master-worker", "wildcard_master_worker.c", 3, []string{"4"}},
	// matches that need a send buffered: the extra interleavings
	{"sendbuff", "slack_sendbuff.c", 4, nil},
}

// runSlack measures the slackBenches under each MPI: median wall time of
// the whole mpivet run, interleavings run, and the ratio of the medians,
// which it prints and returns as the rows of the table "slack".
func runSlack(work string, reps int, mpis []string, match *regexp.Regexp) [][]string {
	var rows [][]string
	mpivet := filepath.Join(work, "mpivet")
	if out, err := exec.Command("go", "build", "-o", mpivet, "mpivet/cmd/mpivet").CombinedOutput(); err != nil {
		fail(fmt.Errorf("building mpivet: %v\n%s", err, out))
	}
	progs := filepath.Join(sourceDir(), "..", "..", "testdata", "programs")
	fmt.Printf("%-8s %-14s %-8s %10s %14s %8s\n", "MPI", "program", "slack", "wall s", "interleavings", "ratio")
	for _, m := range mpis {
		cc := compilers[m]
		if _, err := exec.LookPath(cc); err != nil {
			continue
		}
		for _, b := range slackBenches {
			if !match.MatchString(b.name) {
				continue
			}
			bin := filepath.Join(work, b.name+"-"+m)
			if out, err := exec.Command(cc, "-g", "-O2", "-o", bin, filepath.Join(progs, b.src)).CombinedOutput(); err != nil {
				fail(fmt.Errorf("%s: %v\n%s", b.src, err, out))
			}
			walls := map[string][]float64{}
			ils := map[string]int{}
			for i := 0; i < reps; i++ {
				for _, v := range []string{"off", "minimal"} {
					dir := filepath.Join(work, fmt.Sprintf("%s-%s-%s-%d", b.name, m, v, i))
					js := dir + ".json"
					args := append([]string{"run", "-n", fmt.Sprint(b.np), "--slack=" + v, "--dir", dir, "--json", js, bin}, b.args...)
					t0 := time.Now()
					exec.Command(mpivet, args...).Run() // the verdict is the program's; the time is measured
					walls[v] = append(walls[v], time.Since(t0).Seconds())
					var r struct {
						Interleavings int `json:"interleavings"`
					}
					if data, err := os.ReadFile(js); err == nil && json.Unmarshal(data, &r) == nil {
						ils[v] = r.Interleavings
					}
					os.RemoveAll(dir)
				}
			}
			meds := map[string]float64{}
			for _, v := range []string{"off", "minimal"} {
				ws := walls[v]
				sort.Float64s(ws)
				meds[v] = median(ws)
				fmt.Printf("%-8s %-14s %-8s %10.2f %14d %7.3fx\n", m, b.name, v, meds[v], ils[v], meds[v]/meds["off"])
			}
			rows = append(rows, []string{b.name, mpiName(m), fmt.Sprintf("%d / %d", ils["off"], ils["minimal"]),
				fmt.Sprintf("%.2f s", meds["off"]), fmt.Sprintf("%.2f s", meds["minimal"]), fmt.Sprintf("%.2f×", meds["minimal"]/meds["off"])})
		}
	}
	return rows
}
