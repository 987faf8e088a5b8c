package corpus

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"mpivet/explore"
)

// nondeterministic finds the calls whose outcome the exploration replays.
var nondeterministic = regexp.MustCompile(`(?i)ANY_SOURCE|WAITANY|TESTANY|WAITSOME|TESTSOME`)

// The exploration replays each outcome once (explore/repeat.go): no two
// interleavings of one exploration have the same matches and the same
// sends buffered. Run on every corpus program with nondeterminism when
// MPIVET_REPEATS=all (about 15 minutes on 2 idle cores, both MPIs), which
// also logs, per program and MPI, the interleavings, the infeasible and the
// diverged replays (the measurement in docs/design/exploration.md, "Why no replay repeats");
// otherwise on one program whose replays buffer sends.
func TestExplorationRepeatFree(t *testing.T) {
	parallel(t)
	srcs := []string{filepath.Join("..", "testdata", "programs", "slack_sendbuff_deadlock.c")}
	if os.Getenv("MPIVET_REPEATS") == "all" {
		srcs = nil
		for _, src := range programs(t) {
			if b, err := os.ReadFile(src); err == nil && nondeterministic.Match(b) {
				srcs = append(srcs, src)
			}
		}
	}
	impls := available(t)
	for _, src := range srcs {
		p0, err := Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))
		for _, m := range impls {
			if p0.MPI != "" && p0.MPI != m.name {
				continue
			}
			t.Run(name+"/"+m.name, func(t *testing.T) {
				p := &Program{}
				*p = *p0
				bin := filepath.Join(t.TempDir(), name)
				var flags []string
				switch {
				case filepath.Ext(src) == ".py":
					bin = python(t, p)
				case p.Plugin:
					buildPlugin(t, m, src, bin)
					p.Args = append([]string{bin + ".so"}, p.Args...)
					flags = []string{"--mpi=" + m.name}
				default:
					compile(t, m, src, bin)
				}
				e := exploreUnder(t, p, bin, filepath.Join(t.TempDir(), "run"), 1, nil, nil, flags...)
				n := int(e.report["interleavings"].(float64))
				cov := e.report["coverage"].(map[string]any)
				t.Logf("repeats: %s/%s: %d interleavings, %v infeasible, %v diverged", name, m.name, n, cov["infeasible"], cov["diverged"])
				for _, note := range notes(e.report) {
					if strings.Contains(note, "forced the same matches as an earlier one") {
						t.Errorf("%s", note)
					}
				}
				seen := map[string]int{}
				for i := 1; i <= n; i++ {
					k, ok := e.outcome(i)
					if !ok {
						continue // its records are gone (interrupted)
					}
					if j, dup := seen[k]; dup {
						t.Errorf("interleavings %d and %d have the same outcome: %s", j, i, k)
					}
					seen[k] = i
				}
			})
		}
	}
}

// outcome is what interleaving n did: its matches and the sends mpivet
// buffered in it (the first run buffers none unless --buffer-sends).
func (e *exploration) outcome(n int) (string, bool) {
	m, ok := e.matched[n]
	if !ok {
		return "", false
	}
	var bs []string
	for _, l := range strings.Split(e.decisions[fmt.Sprintf("interleaving-%d", n)], "\n") {
		if f := strings.Fields(l); len(f) == 4 && f[3] == fmt.Sprint(explore.BufferKind) {
			bs = append(bs, l)
		}
	}
	sort.Strings(bs)
	return m + " buffered " + strings.Join(bs, ";"), true
}

// notes are the report's notes.
func notes(r map[string]any) []string {
	var ns []string
	if l, ok := r["notes"].([]any); ok {
		for _, n := range l {
			ns = append(ns, fmt.Sprint(n))
		}
	}
	return ns
}
