package corpus

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"mpivet/internal/junitcheck"
	"mpivet/suite"
)

// The reports of a suite verified from real runs: a buggy program under
// every MPI installed (the same findings, one fingerprint each), a clean
// program, and a launch passed through, reported together by mpivet
// suite-report in every format.
func TestSuiteReports(t *testing.T) {
	parallel(t)
	ms := available(t)
	dir, bins := t.TempDir(), t.TempDir()
	cwd, _ := os.Getwd()
	type launch struct {
		m   mpiImpl
		src string
	}
	var runs []launch
	for _, m := range ms {
		runs = append(runs, launch{m, "fig2_8_leak.c"})
	}
	runs = append(runs, launch{ms[len(ms)-1], "clean_type_matching.c"})
	var launches []suite.Launch
	for i, r := range runs {
		bin := filepath.Join(bins, r.m.name+"-"+strings.TrimSuffix(r.src, ".c"))
		compile(t, r.m, filepath.Join("..", "testdata", "programs", r.src), bin)
		l := suite.Launch{Index: i + 1, Dir: filepath.Join(dir, "launches", fmt.Sprintf("%04d", i+1)),
			Command: []string{"mpiexec", "-n", "2", bin}, WorkDir: cwd, Program: bin, Ranks: 2, Verified: true}
		if err := os.MkdirAll(l.Dir, 0o755); err != nil {
			t.Fatal(err)
		}
		l.Started = time.Now()
		out, code := mpivet(t, "run", "-n", "2", "--no-color", "--json", l.Report(), "--dir", filepath.Join(l.Dir, "run"), bin)
		l.Ended, l.MpivetStatus = time.Now(), code
		if want := map[bool]int{true: 0, false: 1}[strings.HasPrefix(r.src, "clean")]; code != want {
			t.Fatalf("mpivet run %s: exit %d, want %d\n%s", bin, code, want, out)
		}
		launches = append(launches, l)
	}
	launches = append(launches, suite.Launch{Index: len(runs) + 1, Dir: filepath.Join(dir, "launches", fmt.Sprintf("%04d", len(runs)+1)),
		Command: []string{"mpiexec", "-n", "2", "hostname"}, WorkDir: cwd, Reason: "not an MPI program"})
	for _, l := range launches {
		os.MkdirAll(l.Dir, 0o755)
		if err := l.Save(); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{}
	args := []string{"suite-report"}
	for _, f := range []string{"json", "sarif", "html", "junit"} {
		files[f] = filepath.Join(t.TempDir(), "suite."+f)
		args = append(args, "--"+f, files[f])
	}
	out, code := mpivet(t, append(args, dir)...)
	if code != 1 {
		t.Fatalf("mpivet suite-report: exit %d, want 1 (errors found)\n%s", code, out)
	}
	checkSuiteText(t, out, launches)
	fps := checkSuiteJSON(t, files["json"], launches)
	checkSuiteSARIF(t, files["sarif"], fps)
	checkSuiteHTML(t, files["html"], launches)
	checkSuiteJUnit(t, files["junit"], launches)
}

func checkSuiteText(t *testing.T, out string, ls []suite.Launch) {
	t.Helper()
	n := len(ls)
	for i, l := range ls[:n-1] {
		verdict := "error: "
		if i == n-2 {
			verdict = "ok\n"
		}
		if want := fmt.Sprintf("[%d] %s (2 ranks): %s", l.Index, l.Program, verdict); !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
	for _, want := range []string{fmt.Sprintf("[%d] mpiexec -n 2 hostname: not verified: not an MPI program", n),
		fmt.Sprintf("totals: %d launches: 1 ok, %d error, 0 incomplete, 0 mpivet failed, 1 not verified", n, n-2), "verdict: error\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
}

// checkSuiteJSON checks the suite's JSON: each launch with its report,
// the buggy program's findings the same under every MPI. It returns the
// fingerprints of the findings, with the launches that found each.
func checkSuiteJSON(t *testing.T, path string, ls []suite.Launch) map[string][]int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Verdict  string
		Launches []struct {
			Index   int
			Outcome string
			Report  *Report
		}
	}
	if err := json.Unmarshal(data, &s); err != nil || s.Verdict != "error" || len(s.Launches) != len(ls) {
		t.Fatalf("the suite's JSON (%v): %s", err, data)
	}
	fps := map[string][]int{}
	var first []string
	for i, l := range s.Launches[:len(ls)-1] {
		if l.Report == nil {
			t.Fatalf("launch %d has no report in the JSON", l.Index)
		}
		var mine []string
		for _, f := range l.Report.Findings {
			fps[f.Fingerprint] = append(fps[f.Fingerprint], l.Index)
			mine = append(mine, f.Fingerprint)
		}
		slices.Sort(mine)
		if i == 0 {
			first = mine
		} else if i < len(ls)-2 && !slices.Equal(mine, first) {
			t.Errorf("the leak's findings differ between the MPIs: %v and %v", first, mine)
		}
	}
	if len(first) < 2 || s.Launches[len(ls)-2].Outcome != "ok" || s.Launches[len(ls)-1].Outcome != suite.NotVerified {
		t.Errorf("the suite's JSON: %s", data)
	}
	return fps
}

// checkSuiteSARIF: one run, valid; each finding once, naming every launch
// that found it.
func checkSuiteSARIF(t *testing.T, path string, fps map[string][]int) {
	t.Helper()
	checkSARIF(t, path)
	data, _ := os.ReadFile(path)
	var log struct {
		Runs []struct {
			Results []struct {
				PartialFingerprints map[string]string
				Properties          struct{ Launches []int }
			}
		}
	}
	if err := json.Unmarshal(data, &log); err != nil || len(log.Runs) != 1 || len(log.Runs[0].Results) != len(fps) {
		t.Fatalf("the suite's SARIF log: %v, want one run of %d results: %s", err, len(fps), data)
	}
	for _, r := range log.Runs[0].Results {
		fp := r.PartialFingerprints["mpivetFingerprint/v1"]
		if !slices.Equal(r.Properties.Launches, fps[fp]) {
			t.Errorf("the result of %s names launches %v, want %v", fp, r.Properties.Launches, fps[fp])
		}
	}
}

// checkSuiteHTML: the index links every verified launch's page, written
// from its report.json.
func checkSuiteHTML(t *testing.T, path string, ls []suite.Launch) {
	t.Helper()
	index, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls[:len(ls)-1] {
		page := filepath.Join(l.Dir, suite.HTMLFile)
		rel, _ := filepath.Rel(filepath.Dir(path), page)
		b, err := os.ReadFile(page)
		if err != nil || !strings.Contains(string(index), `href="`+rel+`"`) || !strings.Contains(string(b), l.Program) {
			t.Errorf("launch %d: its page (%v) is not linked from the index or not its own", l.Index, err)
		}
	}
}

// checkSuiteJUnit: a testcase per launch, a failure per error finding.
func checkSuiteJUnit(t *testing.T, path string, ls []suite.Launch) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ts, cases, err := junitcheck.OneSuite(data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	n := len(ls)
	if ts.Attrs["tests"] != strconv.Itoa(n) || ts.Attrs["failures"] != strconv.Itoa(n-2) || ts.Attrs["skipped"] != "1" || ts.Attrs["errors"] != "0" {
		t.Errorf("the testsuite: %v", ts.Attrs)
	}
	for _, l := range ls[:n-2] {
		c := cases[l.Program]
		if c == nil || len(junitcheck.Kids(c, "failure")) < 2 || c.Attrs["classname"] != "corpus" {
			t.Errorf("launch %d's testcase: %+v\n%s", l.Index, c, data)
		}
	}
}
