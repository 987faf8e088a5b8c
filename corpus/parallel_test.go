package corpus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"mpivet/explore"
	"mpivet/trace"
)

// Replays run in parallel (--jobs) give the report a sequential
// exploration gives, timing apart: the same interleavings, numbered
// alike, with the same findings and coverage. What a run matches beyond
// its forced decisions is the MPI's choice (the first run's, all of it),
// and the search goes on from there: two sequential explorations number
// their interleavings alike only when every run matched alike. So each
// exploration is keyed by the matches of its interleavings in order, and
// a parallel one is compared whole with a sequential one of the same key
// (a few tries each); failing that, the interleavings are compared as a
// set of outcomes, with the findings and counts.
func TestParallelSameReport(t *testing.T) {
	parallel(t)
	for _, prog := range []string{"wildcard_master_worker.c", "waitany_order.c", "fig1_1_crooked_barrier.c"} {
		p, err := Parse(filepath.Join("..", "testdata", "programs", prog))
		if err != nil {
			t.Fatal(err)
		}
		t.Run(strings.TrimSuffix(prog, ".c"), func(t *testing.T) {
			underEachMPI(t, prog, func(t *testing.T, bin, dir string) {
				jobs := 3
				if strings.Contains(t.Name(), "mpich") {
					jobs = 2 // MPICH busy-polls
				}
				seq := map[string]*exploration{} // by the matches of its interleavings
				par := map[string]*exploration{}
				var s, q *exploration
				for try := 0; try < 3; try++ {
					s = exploreWith(t, p, bin, fmt.Sprintf("%s-seq%d", dir, try), 1)
					seq[s.key()] = s
					q = exploreWith(t, p, bin, fmt.Sprintf("%s-par%d", dir, try), jobs)
					par[q.key()] = q
					if s.report["interleavings"].(float64) < 2 {
						t.Fatalf("%s: %v interleavings: nothing to run in parallel", prog, s.report["interleavings"])
					}
					for k, q := range par {
						if s, ok := seq[k]; ok {
							if !reflect.DeepEqual(q.report, s.report) {
								a, _ := json.MarshalIndent(s.report, "", " ")
								b, _ := json.MarshalIndent(q.report, "", " ")
								t.Errorf("--jobs %d: report differs from --jobs 1:\n%s\n--jobs 1:\n%s", jobs, b, a)
							}
							if !reflect.DeepEqual(q.decisions, s.decisions) {
								t.Errorf("--jobs %d: interleavings numbered otherwise:\n%v\n--jobs 1:\n%v", jobs, q.decisions, s.decisions)
							}
							return
						}
					}
				}
				t.Logf("the MPI never matched alike in a sequential and a parallel exploration: compared as sets")
				if a, b := s.outcomes(), q.outcomes(); !reflect.DeepEqual(a, b) {
					t.Errorf("--jobs %d: other interleavings than --jobs 1:\n%v\n--jobs 1:\n%v", jobs, b, a)
				}
				if a, b := s.summary(), q.summary(); a != b {
					t.Errorf("--jobs %d: %s\n--jobs 1: %s", jobs, b, a)
				}
			})
		})
	}
}

// exploration is what TestParallelSameReport compares of one: its JSON
// report without what depends on time or the run directory, the decisions
// each interleaving-N forced, and the first run's matches.
type exploration struct {
	report    map[string]any
	decisions map[string]string // interleaving-N: the decisions it forced
	matched   map[int]string    // N: its matches, all its wildcard events
}

// key is the matches of the interleavings, in their order.
func (e *exploration) key() string {
	var b strings.Builder
	for n := 1; n <= len(e.matched); n++ {
		fmt.Fprintf(&b, "%d: %s\n", n, e.matched[n])
	}
	return b.String()
}

// outcomes is the matches of the interleavings, without their numbers.
func (e *exploration) outcomes() []string {
	var ms []string
	for _, m := range e.matched {
		ms = append(ms, m)
	}
	sort.Strings(ms)
	return ms
}

// summary says what a report found, without interleaving numbers.
func (e *exploration) summary() string {
	var fs []string
	for _, f := range e.report["findings"].([]any) {
		m := f.(map[string]any)
		fs = append(fs, fmt.Sprint(m["kind"], " ", m["fingerprint"]))
	}
	sort.Strings(fs)
	return fmt.Sprint(e.report["verdict"], " ", e.report["interleavings"], " interleavings, ", sameCoverage(e.report["coverage"]), ", findings ", fs)
}

// sameCoverage is a report's coverage without the size of each site's
// space, which is the first run's: a wildcard site's space counts the
// orders of the messages it matched there, and which worker sent how many
// of them varies from run to run.
func sameCoverage(c any) any {
	m, ok := c.(map[string]any)
	if !ok {
		return c
	}
	sites, _ := m["sites"].([]any)
	for _, s := range sites {
		if sm, ok := s.(map[string]any); ok {
			delete(sm, "space")
			delete(sm, "space_note")
		}
	}
	return m
}

// address is a pointer in a message (a request's handle, a buffer).
var address = regexp.MustCompile(`0x[0-9a-f]{8,}`)

// pid is the host and process id an MPI prints before the lines of its
// own crash handler ("[vm:04114] [ 5] ..."), which a finding quotes from
// the rank's standard error.
var pid = regexp.MustCompile(`\[[A-Za-z0-9_.-]+:[0-9]+\]`)

// exploreWith runs mpivet with --jobs jobs and the program's flags.
func exploreWith(t *testing.T, p *Program, bin, dir string, jobs int) *exploration {
	t.Helper()
	return exploreUnder(t, p, bin, dir, jobs, nil, nil)
}

// exploreUnder runs mpivet as exploreWith does, under the command wrap
// (e.g. salloc), with more flags and environment.
func exploreUnder(t *testing.T, p *Program, bin, dir string, jobs int, wrap, env []string, flags ...string) *exploration {
	t.Helper()
	js := filepath.Join(t.TempDir(), "report.json")
	args := append([]string{mpivetBin, "run", "-n", strconv.Itoa(p.NP), "--timeout", p.Timeout, "--json", js, "--dir", dir, "--no-color",
		"--jobs", strconv.Itoa(jobs)}, p.Flags...)
	args = append(append(append(append(wrap, args...), flags...), bin), p.Args...)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("mpivet: %v", err)
	}
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatalf("--jobs %d: no JSON report:\n%s", jobs, out)
	}
	data = bytes.ReplaceAll(data, []byte(dir), []byte("RUNDIR"))
	data = address.ReplaceAll(data, []byte("0xADDR")) // of the program's objects: ASLR
	data = pid.ReplaceAll(data, []byte("[HOST:PID]"))
	e := &exploration{decisions: map[string]string{}}
	if err := json.Unmarshal(data, &e.report); err != nil {
		t.Fatal(err)
	}
	delete(e.report, "seconds")
	subs, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, s := range subs {
		if st, err := os.Stat(s); err == nil && st.IsDir() {
			b, _ := os.ReadFile(filepath.Join(s, "decisions"))
			e.decisions[filepath.Base(s)] = string(b)
		}
	}
	run, err := trace.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	e.matched = map[int]string{1: fmt.Sprint(explore.Complete(run))}
	for name := range e.decisions {
		if n, err := strconv.Atoi(strings.TrimPrefix(name, "interleaving-")); err == nil {
			ds, err := explore.ReadDecisions(filepath.Join(dir, name, "decisions.complete"))
			if err != nil {
				t.Fatal(err)
			}
			e.matched[n] = fmt.Sprint(ds)
		}
	}
	return e
}
