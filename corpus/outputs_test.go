package corpus

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"mpivet/internal/sarifcheck"
	"mpivet/report"
)

// chromium finds headless Chromium (scripts/setup installs Debian's
// chromium); without it the browser test skips, except under CI=true.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed (scripts/setup installs it)")
	}
	t.Skip("chromium is not installed")
	return ""
}

// artifacts is where the browser test leaves its screenshots: the
// directory $MPIVET_ARTIFACTS names (CI keeps it), else
// $TMPDIR/mpivet-artifacts.
func artifacts(t *testing.T) string {
	dir := os.Getenv("MPIVET_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "mpivet-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// browse opens page in headless Chromium, as root and offline, and returns
// the DOM after its script ran and what the page said on its console
// (Chromium logs console messages and uncaught exceptions as INFO:CONSOLE
// lines); with shot set, it also takes a screenshot there.
func browse(t *testing.T, browser, page, shot string) (dom, console string) {
	t.Helper()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0", "--window-size=1400,1600"}
	abs, _ := filepath.Abs(page)
	url := "file://" + abs
	cmd := exec.Command(browser, append(args, "--dump-dom", url)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium --dump-dom %s: %v\n%s", page, err, errb.String())
	}
	var msgs []string
	for _, l := range strings.Split(errb.String(), "\n") {
		if strings.Contains(l, ":CONSOLE") {
			msgs = append(msgs, l)
		}
	}
	if shot != "" {
		cmd = exec.Command(browser, append(args, "--screenshot="+shot, url)...)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("chromium --screenshot: %v\n%s", err, b)
		}
		if st, err := os.Stat(shot); err != nil || st.Size() == 0 {
			t.Fatalf("no screenshot %s (%v)", shot, err)
		}
	}
	return out.String(), strings.Join(msgs, "\n")
}

// The console capture sees what a page says: the test below can fail.
func TestBrowserSeesConsoleErrors(t *testing.T) {
	parallel(t)
	browser := chromium(t)
	page := filepath.Join(t.TempDir(), "bad.html")
	os.WriteFile(page, []byte(`<html><body><p id="x">x</p><script>undefinedFunction();</script></body></html>`), 0o644)
	dom, console := browse(t, browser, page, "")
	if !strings.Contains(console, "undefinedFunction") || !strings.Contains(dom, `id="x"`) {
		t.Fatalf("the error went unseen; console %q, DOM %q", console, dom)
	}
}

// preferOpenMPI is the MPI the single-MPI tests use: Open MPI, which runs
// 64 ranks on two cores (MPICH busy-polls).
func preferOpenMPI(t *testing.T) mpiImpl {
	ms := available(t)
	for _, m := range ms {
		if m.name == "openmpi" {
			return m
		}
	}
	return ms[0]
}

var spacetimeLanes = regexp.MustCompile(`font-size="10.00">ranks? [0-9,&#;\s-]+</text>`)

// The HTML reports of a deadlock, a buffer-reuse finding, a crash found by
// exploration and a 64-rank deadlock open in headless Chromium without a
// console message; the wait-for graph (deadlocks) and the space-time
// diagram are SVG in them, the page's script ran, and the 64 ranks take
// two lanes (rank 0, and ranks 1-63, which made the same calls). Their
// SARIF validates against the schema. Screenshots go to artifacts.
func TestHTMLReportInBrowser(t *testing.T) {
	parallel(t)
	browser := chromium(t)
	for _, m := range available(t) {
		t.Run(m.name, func(t *testing.T) { browseReports(t, browser, m) })
	}
}

func browseReports(t *testing.T, browser string, m mpiImpl) {
	for _, c := range []struct {
		program string
		graph   bool
		lanes   int
	}{
		{"fig2_4_deadlock.c", true, 3},
		{"fig2_9_buffer_reuse.c", false, 2},
		{"waitany_order.c", false, 3},
		{"deadlock_ring64.c", true, 2},
	} {
		t.Run(strings.TrimSuffix(c.program, ".c"), func(t *testing.T) {
			p, err := Parse(filepath.Join("..", "testdata", "programs", c.program))
			if err != nil {
				t.Fatal(err)
			}
			if p.MPI != "" && p.MPI != m.name {
				t.Skipf("runs under %s only", p.MPI)
			}
			dir := t.TempDir()
			bin := filepath.Join(dir, strings.TrimSuffix(c.program, ".c"))
			compile(t, m, p.Path, bin)
			page, sarif := filepath.Join(dir, "report.html"), filepath.Join(dir, "report.sarif")
			r, out, code := RunMpivet(t, p, bin, "--html", page, "--sarif", sarif)
			if code != 1 || r.Verdict != "error" {
				t.Fatalf("exit %d, verdict %s:\n%s", code, r.Verdict, out)
			}
			shot := filepath.Join(artifacts(t), m.name+"-"+strings.TrimSuffix(c.program, ".c")+".png")
			dom, console := browse(t, browser, page, shot)
			if console != "" {
				t.Errorf("console messages:\n%s", console)
			}
			if !regexp.MustCompile(`id="shown">\d+ shown<`).MatchString(dom) {
				t.Error("the page's script did not run")
			}
			st := section(dom, `class="drawing spacetime"`)
			if !strings.Contains(st, "<svg") {
				t.Error("no space-time diagram")
			}
			if n := len(spacetimeLanes.FindAllString(st, -1)); n != c.lanes {
				t.Errorf("%d lanes in the space-time diagram, want %d", n, c.lanes)
			}
			if wf := section(dom, `class="drawing waitfor"`); c.graph && (!strings.Contains(wf, "<svg") || !strings.Contains(wf, "stroke-dasharray")) {
				t.Error("no wait-for graph with its legend (a dashed OR arc)")
			}
			data, err := os.ReadFile(sarif)
			if err != nil {
				t.Fatal(err)
			}
			if err := sarifcheck.Validate(data); err != nil {
				t.Errorf("SARIF: %v", err)
			}
			if !bytes.Contains(data, []byte(`"threadFlows"`)) {
				t.Error("SARIF: no thread flow")
			}
			t.Logf("screenshot: %s", shot)
		})
	}
}

// section is the DOM from the element whose attribute is attr to the next
// drawing or the end.
func section(dom, attr string) string {
	i := strings.Index(dom, attr)
	if i < 0 {
		return ""
	}
	s := dom[i:]
	if j := strings.Index(s[len(attr):], `class="drawing `); j >= 0 {
		s = s[:len(attr)+j]
	}
	return s
}

// checkSARIF validates the SARIF log of a corpus run: the schema test of
// every kind the corpus produces, on real reports.
func checkSARIF(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("no SARIF log: %v", err)
		return
	}
	if err := sarifcheck.Validate(data); err != nil {
		t.Errorf("the SARIF log does not validate: %v", err)
	}
}

// A suppression silences rank 0's buffer-reuse finding and not rank 1's,
// its neighbour; one that matches nothing is reported; the verdict counts
// only what is left. The default file in the working directory is read
// when --suppressions names none: silencing both findings makes the run
// clean (exit 0).
func TestSuppressionsEndToEnd(t *testing.T) {
	parallel(t)
	m := preferOpenMPI(t)
	p, err := Parse(filepath.Join("..", "testdata", "programs", "fig2_9_buffer_reuse.c"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "fig2_9_buffer_reuse")
	compile(t, m, p.Path, bin)
	supp := filepath.Join(dir, "supp")
	os.WriteFile(supp, []byte("# the write of rank 0, not the read of rank 1\n"+
		"kind=buffer-reuse file=fig2_9_buffer_reuse.c:18 reason=\"known, see the test\"\n"+
		"kind=deadlock function=main reason=\"never happens\"\n"), 0o644)
	full, out, code := runJSON(t, "", "run", "-n", "2", "--no-color", "--suppressions", supp, bin)
	if code != 1 || full.Verdict != "error" || len(full.Findings) != 1 || full.Findings[0].Ranks[0] != 1 {
		t.Fatalf("exit %d, findings %+v:\n%s", code, full.Findings, out)
	}
	if len(full.Suppressed) != 1 || full.Suppressed[0].Ranks[0] != 0 || full.Suppressed[0].Reason != "known, see the test" {
		t.Errorf("suppressed: %+v", full.Suppressed)
	}
	if len(full.Unused) != 1 || !strings.Contains(full.Unused[0], supp+":3") {
		t.Errorf("unused: %q", full.Unused)
	}
	for _, want := range []string{"suppressed: 1 finding (1 error), not counted in the verdict", "unused suppression: " + supp + ":3"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}

	// the default file, in the working directory
	wd := t.TempDir()
	os.WriteFile(filepath.Join(wd, report.DefaultSuppressions), []byte("kind=buffer-reuse file=fig2_9_buffer_reuse.c reason=\"all of them\"\n"), 0o644)
	full, out, code = runJSON(t, wd, "run", "-n", "2", "--no-color", bin)
	if code != 0 || full.Verdict != "ok" || len(full.Suppressed) != 2 || !strings.Contains(out, "suppressed: 2 findings (2 errors)") {
		t.Errorf("with every finding suppressed: exit %d\n%s", code, out)
	}
}

// An interleaving exported as a witness replays from the witness alone
// and shows its finding again; another binary is refused.
func TestWitness(t *testing.T) {
	parallel(t)
	m := preferOpenMPI(t)
	p, err := Parse(filepath.Join("..", "testdata", "programs", "waitany_order.c"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "waitany_order")
	compile(t, m, p.Path, bin)
	full, out, _ := runJSON(t, "", "run", "-n", "3", "--no-color", bin)
	if len(full.Findings) != 1 || full.Findings[0].Interleaving != 2 {
		t.Fatalf("findings %+v\n%s", full.Findings, out)
	}
	w := filepath.Join(t.TempDir(), "witness")
	if b, err := exec.Command(mpivetBin, "replay", full.RunDir, "--interleaving", "2", "--export", w).CombinedOutput(); err != nil {
		t.Fatalf("export: %v\n%s", err, b)
	}
	for _, f := range []string{"witness.json", "command.json", "decisions.complete"} {
		if _, err := os.Stat(filepath.Join(w, f)); err != nil {
			t.Error(err)
		}
	}
	os.RemoveAll(full.RunDir) // the witness alone replays it
	b, err := exec.Command(mpivetBin, "replay", "--no-color", w).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(b), "error[program-failure]") {
		t.Errorf("replaying the witness: %v\n%s", err, b)
	}
	other := filepath.Join(dir, "other")
	compile(t, m, filepath.Join("..", "testdata", "programs", "fig2_4_deadlock.c"), other)
	b, err = exec.Command(mpivetBin, "replay", "--program", other, w).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(b), "is not the binary the witness was made with") {
		t.Errorf("another binary: %v\n%s", err, b)
	}
}

// runJSON runs mpivet with args (and --json, --dir of its own) in the
// working directory wd ("": the test's) and returns its whole report, what
// it printed and its exit status.
func runJSON(t *testing.T, wd string, args ...string) (*report.Report, string, int) {
	t.Helper()
	dir := t.TempDir()
	js := filepath.Join(dir, "report.json")
	args = append([]string{args[0], "--json", js, "--dir", filepath.Join(dir, "run")}, args[1:]...)
	cmd := exec.Command(mpivetBin, args...)
	cmd.Dir = wd
	b, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatalf("no JSON report (exit %d):\n%s", code, b)
	}
	var r report.Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return &r, string(b), code
}
