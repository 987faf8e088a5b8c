package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs/performance.md's generated tables are what the result files they
// name give: regenerate them with go run ./bench -tables docs/performance.md.
func TestPerformanceTablesCurrent(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "docs", "performance.md"))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, m := range generated.FindAllSubmatch(page, -1) {
		kinds[string(m[2])]++
	}
	if kinds["results"] == 0 || kinds["scaling"] == 0 {
		t.Errorf("docs/performance.md has %d tables from result files and %d from scaling files, want both", kinds["results"], kinds["scaling"])
	}
	want, err := regenerate(page, "..")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(page, want) {
		t.Error("docs/performance.md's tables are not what their files give: go run ./bench -tables docs/performance.md")
	}
}

// A result written is read back, and printed under its date, machine and
// command.
func TestResultsRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.csv")
	a := result{Date: "2026-01-02", Machine: "2 cores (x), 8 GiB, Debian 12", Command: "go run ./bench -reps 3", MPI: "openmpi",
		Benchmark: "halo-256", Metric: "iter_us", LoadStart: 1, LoadEnd: 2, NativeMedian: 100, MpivetMedian: 125, NativeBest: 90, MpivetBest: 99, Reps: 3}
	b := a
	b.MPI, b.MpivetMedian = "mpich", 150
	for _, r := range []result{a, b} {
		if err := appendResult(path, r); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := readResults(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0] != a || rows[1] != b {
		t.Fatalf("read back %+v", rows)
	}
	var out bytes.Buffer
	printResultsTable(&out, rows)
	for _, s := range []string{"Measured 2026-01-02 on 2 cores (x), 8 GiB, Debian 12", "`go run ./bench -reps 3`",
		"| `halo-256` | Open MPI | iter_us | 100.000 | 125.000 | 1.25× | 1.10× |", "| `halo-256` | MPICH | iter_us | 100.000 | 150.000 | 1.50× |"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, out.String())
		}
	}
	if strings.Count(out.String(), "Measured") != 1 {
		t.Errorf("one invocation, one heading:\n%s", out.String())
	}
}
