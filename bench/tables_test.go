package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Rows appended to a table file are read back and rendered as one table
// per measurement, each headed by its date, machine, load, command and
// note; rows of other columns go under a header of their own, and the
// older rows keep theirs.
func TestTableFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.csv")
	cols := []string{"benchmark", "Open MPI", "MPICH"}
	a := tableRow{Date: "2026-01-02", Machine: "2 cores (x)", Load: "3 at the start, 4 at the end", Command: "go run ./bench -table parts", Note: "5 runs",
		Cells: []string{"`halo-256`", "1.25×", "1.30×"}}
	b := a
	b.Cells = []string{"`halo-16`", "4.61×", ""}
	later := a
	later.Date, later.Load, later.Cells = "2026-02-03", "idle", []string{"`halo-256`", "1.20×", "1.21×"}
	other := later
	other.Cells = []string{"`halo-256`", "1.20×"}
	for _, step := range []struct {
		cols []string
		rows []tableRow
	}{{cols, []tableRow{a, b}}, {cols, []tableRow{later}}, {[]string{"benchmark", "ratio"}, []tableRow{other}}} {
		if err := appendTable(path, step.cols, step.rows); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "date,machine,load,command,note,"); n != 2 {
		t.Errorf("%d headers in the file, want 2 (one per set of columns):\n%s", n, data)
	}
	tab, err := readTable(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 4 || strings.Join(tab.Columns, ",") != "benchmark,ratio" || strings.Join(tab.Rows[2].Columns, ",") != "benchmark,Open MPI,MPICH" {
		t.Fatalf("read back %+v", tab)
	}
	var out bytes.Buffer
	printTable(&out, tab)
	want := "Measured 2026-01-02 on 2 cores (x); load average: 3 at the start, 4 at the end; command: `go run ./bench -table parts`; 5 runs:\n\n" +
		"| benchmark | Open MPI | MPICH |\n|---|---|---|\n| `halo-256` | 1.25× | 1.30× |\n| `halo-16` | 4.61× |  |\n\n" +
		"Measured 2026-02-03 on 2 cores (x); load average: idle; command: `go run ./bench -table parts`; 5 runs:\n\n" +
		"| benchmark | Open MPI | MPICH |\n|---|---|---|\n| `halo-256` | 1.20× | 1.21× |\n\n" +
		"Measured 2026-02-03 on 2 cores (x); load average: idle; command: `go run ./bench -table parts`; 5 runs:\n\n" +
		"| benchmark | ratio |\n|---|---|\n| `halo-256` | 1.20× |\n"
	if out.String() != want {
		t.Errorf("rendered\n%s\nwant\n%s", out.String(), want)
	}
	for _, bad := range []string{"date,machine,load,command,note,x\n2026-01-02,,1,c,,v\n", "date,machine,load,command,note,x\n2026-01-02,m,1,c,,v,w\n"} {
		if _, err := readTable(strings.NewReader(bad)); err == nil {
			t.Errorf("read a bad table file:\n%s", bad)
		}
	}
}

// A measured table's cells are the results of the benchmarks its rows
// name, under the MPIs its columns name; a cell whose benchmark was not
// measured stays empty.
func TestTableCells(t *testing.T) {
	res := func(mpi, bench, metric string, nm, um, nb, ub float64) result {
		return result{MPI: mpi, Benchmark: bench, Metric: metric, NativeMedian: nm, MpivetMedian: um, NativeBest: nb, MpivetBest: ub}
	}
	results := []result{
		res("openmpi", "rma-fence", "iter_us", 100, 125, 90, 99),
		res("openmpi", "calls-send", "call_ns", 6, 38.4, 5, 37.6),
		res("openmpi", "calls-send-unchecked", "call_ns", 6, 14.2, 5, 14.4),
		res("openmpi", "py-pingpong", "latency_us", 0.435, 0.727, 0.43, 0.7),
	}
	rma := tableSpecs["rma"].cells(results)
	if got := strings.Join(rma[0], " | "); got != "fence, 256x256 (`rma-fence`) | 1.25× (1.10×) | " {
		t.Errorf("rma row: %s", got)
	}
	args := tableSpecs["arguments"].cells(results)
	if got := strings.Join(args[0], " | "); got != "`MPI_Send`, checks on / off | 38 / 14 ns | " {
		t.Errorf("arguments row: %s", got)
	}
	py := tableSpecs["python"].cells(results)
	if got := strings.Join(py[0], " | "); got != "mpi4py ping-pong, 8 bytes (`py-pingpong`), latency | 0.435 µs | 0.727 µs | 1.67× | 1.63×" {
		t.Errorf("python row: %s", got)
	}
	match, mpis := tableSpecs["arguments"].benches()
	if !match.MatchString("calls-send") || match.MatchString("calls-send-unchecked-x") || strings.Join(mpis, ",") != "mpich,openmpi" {
		t.Errorf("arguments measures %v under %v", match, mpis)
	}
}

// Every table of the page's recorded measurements is generated from a
// table file, every table file under docs/bench is on the page, and each
// measured table's file has the columns its measurement writes (so that
// -table NAME appends to it).
func TestRecordedTablesGenerated(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "docs", "performance.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, recorded, ok := strings.Cut(string(page), "\n## Recorded measurements\n")
	if !ok {
		t.Fatal("docs/performance.md has no section Recorded measurements")
	}
	outside := generated.ReplaceAllString(recorded, "")
	if m := regexp.MustCompile(`(?m)^\|.*$`).FindString(outside); m != "" {
		t.Errorf("a table in Recorded measurements is not generated from a file: %s", m)
	}
	named := map[string]string{} // file -> kind (table, results, scaling)
	for _, m := range generated.FindAllStringSubmatch(string(page), -1) {
		named[m[3]] = m[2]
	}
	files, _ := filepath.Glob(filepath.Join("..", "docs", "bench", "*.csv"))
	if len(files) == 0 {
		t.Fatal("no docs/bench/*.csv")
	}
	for _, f := range files {
		if rel := "docs/bench/" + filepath.Base(f); named[rel] == "" {
			t.Errorf("%s is on no table of docs/performance.md", rel)
		}
	}
	for rel, kind := range named {
		name := strings.TrimSuffix(strings.TrimPrefix(rel, "docs/bench/"), ".csv")
		if _, ok := tableSpecs[name]; kind == "table" && !ok {
			t.Errorf("table %s of docs/performance.md has no bench mode (-table %s)", rel, name)
		}
	}
	for name, spec := range tableSpecs {
		f, err := os.Open(filepath.Join("..", "docs", "bench", name+".csv"))
		if err != nil {
			t.Errorf("table %s: %v", name, err)
			continue
		}
		tab, err := readTable(f)
		f.Close()
		if err != nil {
			t.Errorf("table %s: %v", name, err)
		} else if strings.Join(tab.Columns, "\x00") != strings.Join(spec.columns, "\x00") {
			t.Errorf("table %s: the file's columns are %q, its measurement's %q", name, tab.Columns, spec.columns)
		}
	}
}

// The table "parallel" takes the median of each --jobs over the rounds of
// scripts/bench-parallel's output, in the order of parallelJobs.
func TestParallelRows(t *testing.T) {
	out := `openmpi, 4 ranks, 6 tasks, 2 cores; load before: 1.0
round 1: native 0.35 s; mpivet --jobs 1 --wait default: 24.8 s wall, CPU 20.1 user + 9.0 sys, 162 interleavings (ok), 0.153 s wall and 0.180 s CPU each; load 1.2
round 1: native 0.36 s; mpivet --jobs default --wait default: 19.3 s wall, CPU 21.0 user + 9.5 sys, 162 interleavings (ok), 0.119 s wall and 0.188 s CPU each; load 1.3
round 2: native 0.40 s; mpivet --jobs 1 --wait default: 26.0 s wall, CPU 20.1 user + 9.0 sys, 162 interleavings (ok), 0.160 s wall and 0.180 s CPU each; load 1.2
round 3: native 0.30 s; mpivet --jobs 1 --wait default: 25.0 s wall, CPU 20.1 user + 9.0 sys, 162 interleavings (ok), 0.154 s wall and 0.180 s CPU each; load 1.2
`
	got := parallelRows(out)
	want := [][]string{{"mpivet, default", "19.3 s", "0.119 s", "0.36 s"}, {"mpivet `--jobs 1`", "25.0 s", "0.154 s", "0.35 s"}}
	if len(got) != len(want) || strings.Join(got[0], "|") != strings.Join(want[0], "|") || strings.Join(got[1], "|") != strings.Join(want[1], "|") {
		t.Errorf("rows %q, want %q", got, want)
	}
}

func TestValue(t *testing.T) {
	for v, want := range map[float64]string{0.4351: "0.435", 79.783: "79.8", 113.699: "114", 27327.859: "27328"} {
		if got := value(v); got != want {
			t.Errorf("value(%v) = %s, want %s", v, got, want)
		}
	}
}

// Every measured table either names the benchmarks of its rows, with no
// more cells than columns, or measures its rows itself.
func TestEveryTableMeasures(t *testing.T) {
	for name, spec := range tableSpecs {
		if spec.run == nil && len(spec.rows) == 0 {
			t.Errorf("table %s: no rows and no measurement", name)
		}
		for _, r := range spec.rows {
			if len(r.cells)+1 > len(spec.columns) {
				t.Errorf("table %s, row %q: %d cells for %d columns", name, r.label, len(r.cells)+1, len(spec.columns))
			}
		}
	}
}

// The exploration tables read scripts/bench-parallel's lines: spin against
// sleep per --jobs, one value per round, and the medians of
// scripts/replay-timeline's phases, wall and CPU apart.
func TestExplorationRows(t *testing.T) {
	out := `round 1: native 0.50 s; mpivet --jobs 1 --wait spin: 41.3 s wall, CPU 6.2 user + 8.9 sys, 40 interleavings (incomplete), 1.033 s wall and 0.378 s CPU each; load 36
round 1: native 0.48 s; mpivet --jobs 1 --wait sleep: 32.8 s wall, CPU 5.9 user + 8.2 sys, 40 interleavings (incomplete), 0.820 s wall and 0.353 s CPU each; load 40
round 2: native 0.45 s; mpivet --jobs 1 --wait spin: 21.3 s wall, CPU 5.5 user + 8.0 sys, 40 interleavings (incomplete), 0.533 s wall and 0.338 s CPU each; load 30
round 2: native 0.47 s; mpivet --jobs 1 --wait sleep: 16.4 s wall, CPU 5.1 user + 7.6 sys, 40 interleavings (incomplete), 0.410 s wall and 0.318 s CPU each; load 31
where one interleaving's time goes (--jobs 1, round 1):
  phase                                                   median       sum
  MPI_Init (last start-up done -> last returned)         140.9ms     4.44s
  CPU time of the ranks (added up over them), median per interleaving:
    MPI_Init                                              66.7ms     2.02s
  one interleaving, launch -> checked                    443.5ms    14.48s
`
	rs := parseRounds(out)
	if len(rs) != 4 || rs[3].wait != "sleep" || rs[3].interleavings != 40 || rs[2].user != 5.5 {
		t.Fatalf("parsed %+v", rs)
	}
	sum := func(r round) string { return fmt.Sprintf("%.1f", r.user+r.sys) }
	rows := waitRows(rs, func(j string) string { return "`--jobs " + j + "`" }, sum, "1", "2")
	if got := strings.Join(rows[0], " | "); got != "`--jobs 1` | 41.3, 21.3 s | 15.1, 13.5 s | 32.8, 16.4 s | 14.1, 12.7 s" {
		t.Errorf("--jobs 1 row: %s", got)
	}
	if got := strings.Join(rows[1], " | "); got != "`--jobs 2` |  |  |  | " {
		t.Errorf("a --jobs not measured: %s", got)
	}
	wall, cpu := timelineMedians(out)
	if wall["MPI_Init"] != "" || wall["MPI_Init (last start-up done -> last returned)"] != "140.9 ms" ||
		cpu["MPI_Init"] != "66.7 ms" || wall["one interleaving, launch -> checked"] != "443.5 ms" {
		t.Errorf("timeline: wall %v, cpu %v", wall, cpu)
	}
	for _, p := range timelinePhases {
		if !strings.Contains(mustRead(t, "../scripts/replay-timeline"), p[1]) {
			t.Errorf("scripts/replay-timeline prints no %q", p[1])
		}
	}
}

func mustRead(t *testing.T, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
