package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Rows appended to a table file are read back and rendered as one table
// per measurement, each headed by its date, machine, load, command and
// note; a file with other columns is not appended to.
func TestTableFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.csv")
	cols := []string{"benchmark", "Open MPI", "MPICH"}
	a := tableRow{"2026-01-02", "2 cores (x)", "3 at the start, 4 at the end", "go run ./bench -table parts", "5 runs", []string{"`halo-256`", "1.25×", "1.30×"}}
	b := a
	b.Cells = []string{"`halo-16`", "4.61×", ""}
	later := a
	later.Date, later.Load, later.Cells = "2026-02-03", "idle", []string{"`halo-256`", "1.20×", "1.21×"}
	if err := appendTable(path, cols, []tableRow{a, b}); err != nil {
		t.Fatal(err)
	}
	if err := appendTable(path, cols, []tableRow{later}); err != nil {
		t.Fatal(err)
	}
	if err := appendTable(path, []string{"benchmark", "ratio"}, []tableRow{later}); err == nil {
		t.Error("rows of other columns appended")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, err := readTable(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 3 || strings.Join(tab.Columns, ",") != "benchmark,Open MPI,MPICH" {
		t.Fatalf("read back %+v", tab)
	}
	var out bytes.Buffer
	printTable(&out, tab)
	want := "Measured 2026-01-02 on 2 cores (x); load average: 3 at the start, 4 at the end; command: `go run ./bench -table parts`; 5 runs:\n\n" +
		"| benchmark | Open MPI | MPICH |\n|---|---|---|\n| `halo-256` | 1.25× | 1.30× |\n| `halo-16` | 4.61× |  |\n\n" +
		"Measured 2026-02-03 on 2 cores (x); load average: idle; command: `go run ./bench -table parts`; 5 runs:\n\n" +
		"| benchmark | Open MPI | MPICH |\n|---|---|---|\n| `halo-256` | 1.20× | 1.21× |\n"
	if out.String() != want {
		t.Errorf("rendered\n%s\nwant\n%s", out.String(), want)
	}
	if _, err := readTable(strings.NewReader("date,machine,load,command,note,x\n2026-01-02,,1,c,,v\n")); err == nil {
		t.Error("a row without its machine was read")
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
	named := map[string]bool{}
	for _, m := range generated.FindAllStringSubmatch(string(page), -1) {
		named[m[3]] = true
	}
	files, _ := filepath.Glob(filepath.Join("..", "docs", "bench", "*.csv"))
	if len(files) == 0 {
		t.Fatal("no docs/bench/*.csv")
	}
	for _, f := range files {
		if rel := "docs/bench/" + filepath.Base(f); !named[rel] {
			t.Errorf("%s is on no table of docs/performance.md", rel)
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
