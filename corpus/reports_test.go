package corpus

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// MPIVET_CORPUS_REPORTS=DIR makes every run of mpivet in these tests leave
// its JSON report in DIR, normalised so that two runs of the corpus (on two
// commits) compare with diff -r: the run directory, the program's path,
// durations and machine addresses of handles are replaced by placeholders,
// and module paths by their base names. scripts/corpus-reports runs the
// corpus so on two commits and diffs the reports.
const reportsEnv = "MPIVET_CORPUS_REPORTS"

var (
	reportsMu sync.Mutex
	reportsN  = map[string]int{}
	hexRE     = regexp.MustCompile(`0x[0-9a-f]{9,}`)
	secondsRE = regexp.MustCompile(`[0-9]+(\.[0-9]+)?(ms|s)\b`)
)

// saveReport writes the normalised form of the JSON report data of a run
// whose files are under dir (run directory, binaries under bin's directory).
func saveReport(t *testing.T, data []byte, dirs ...string) {
	out := os.Getenv(reportsEnv)
	if out == "" {
		return
	}
	if root, err := filepath.Abs(".."); err == nil {
		dirs = append(dirs, root) // the source tree: file paths in notes
	}
	var r map[string]any
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("bad JSON report: %v", err)
	}
	for _, k := range []string{"run_dir", "seconds", "program"} {
		delete(r, k)
	}
	norm := func(s string) string {
		for i, d := range dirs {
			s = strings.ReplaceAll(s, d, "$DIR"+string(rune('0'+i)))
		}
		s = hexRE.ReplaceAllString(s, "0xADDR")
		return secondsRE.ReplaceAllString(s, "TIME")
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case string:
			return norm(x)
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
		case map[string]any:
			for k, e := range x {
				if k == "module" || k == "path" {
					if s, ok := e.(string); ok {
						x[k] = filepath.Base(s)
						continue
					}
				}
				x[k] = walk(e)
			}
		}
		return v
	}
	walk(r)
	b, _ := json.MarshalIndent(r, "", "  ")
	name := strings.ReplaceAll(t.Name(), "/", "_")
	reportsMu.Lock()
	reportsN[name]++
	if n := reportsN[name]; n > 1 {
		name += "." + string(rune('0'+n))
	}
	reportsMu.Unlock()
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, name+".json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCompareReports compares the reports two runs of the corpus left with
// MPIVET_CORPUS_REPORTS (MPIVET_REPORTS_BEFORE and MPIVET_REPORTS_AFTER
// name the two directories): every report must be in both, and the same
// but for the fields listed in added (new in the after reports). Without
// the two directories it skips.
func TestCompareReports(t *testing.T) {
	parallel(t)
	before, after := os.Getenv("MPIVET_REPORTS_BEFORE"), os.Getenv("MPIVET_REPORTS_AFTER")
	if before == "" || after == "" {
		t.Skip("MPIVET_REPORTS_BEFORE and MPIVET_REPORTS_AFTER name the directories to compare")
	}
	added := map[string]bool{"fingerprint": true}
	load := func(dir string) map[string]string {
		out := map[string]string{}
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			var v any
			if err := json.Unmarshal(data, &v); err != nil {
				t.Fatalf("%s: %v", e.Name(), err)
			}
			var drop func(v any)
			drop = func(v any) {
				switch x := v.(type) {
				case []any:
					for _, e := range x {
						drop(e)
					}
				case map[string]any:
					for k, e := range x {
						if added[k] {
							delete(x, k)
						} else {
							drop(e)
						}
					}
				}
			}
			drop(v)
			dropWatchNotes(v)
			b, _ := json.MarshalIndent(v, "", "  ")
			out[e.Name()] = timingFree(string(b))
		}
		return out
	}
	b, a := load(before), load(after)
	same := 0
	for name, want := range b {
		got, ok := a[name]
		switch {
		case !ok:
			t.Errorf("%s: no report after", name)
		case got != want:
			t.Errorf("%s differs:\n%s", name, lineDiff(want, got))
		default:
			same++
		}
	}
	for name := range a {
		if _, ok := b[name]; !ok {
			t.Errorf("%s: no report before", name)
		}
	}
	t.Logf("%d of %d reports the same", same, len(b))
}

// What in a report depends on the run's timing, not on mpivet: how many
// operations the buffer checker's budget let it watch (its note), and what
// the MPI printed before the job ended (process ids, error codes, how much
// of its message came out). The interleaving counts of programs whose
// Waitany-family calls return what has already completed depend on timing
// too; they are not hidden: a difference there is listed and explained.
var (
	mpiSaidRE = regexp.MustCompile(`it said:\\n.*?; as a consequence`)
	errCodeRE = regexp.MustCompile(`error code [0-9]+`)
)

// dropWatchNotes removes the buffer checker's note from a report.
func dropWatchNotes(v any) {
	r, ok := v.(map[string]any)
	if !ok {
		return
	}
	notes, _ := r["notes"].([]any)
	var kept []any
	for _, n := range notes {
		if s, _ := n.(string); !strings.HasPrefix(s, "buffers: ") {
			kept = append(kept, n)
		}
	}
	if len(kept) == 0 {
		delete(r, "notes")
	} else {
		r["notes"] = kept
	}
}

// timingFree hides what the MPI printed as it ended the job.
func timingFree(s string) string {
	s = mpiSaidRE.ReplaceAllString(s, "it said: ...; as a consequence")
	return errCodeRE.ReplaceAllString(s, "error code N")
}

// lineDiff lists the lines of two texts that differ, position by position
// after their common beginning and end.
func lineDiff(a, b string) string {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	i := 0
	for i < len(x) && i < len(y) && x[i] == y[i] {
		i++
	}
	j, k := len(x), len(y)
	for j > i && k > i && x[j-1] == y[k-1] {
		j, k = j-1, k-1
	}
	var out []string
	for _, l := range x[i:j] {
		out = append(out, "- "+l)
	}
	for _, l := range y[i:k] {
		out = append(out, "+ "+l)
	}
	return strings.Join(out, "\n")
}
