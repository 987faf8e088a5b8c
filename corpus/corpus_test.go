// Package corpus runs mpivet on the small MPI programs in
// testdata/programs under every MPI installed, and compares its findings
// with the expectations written in each program:
//
//	// mpivet: np=3 args=segv timeout=5s verdict=error mpi=openmpi
//	MPI_Isend(...);   // want "resource-leak" "request-lifecycle"
//
// (Fortran: "! mpivet:" and "! want"; Python: "# mpivet:" and "# want",
// run with /usr/bin/python3, whose mpi4py is Debian's; "want(mpich)" expects a finding under
// one MPI only, for erroneous programs the MPIs treat differently.) Every finding must have a location on
// a line that wants its kind, and every want must be met by a finding; a
// program without wants must give no finding at all. Options: np (ranks),
// args (program arguments, space separated), timeout, verdict (ok|error|incomplete),
// mpi (run only under this MPI), nolocation=KIND (a finding of KIND without a
// source location is expected), flags (extra mpivet flags, comma separated),
// interleavings (how many interleavings the exploration must run), strip=1
// (run the program stripped of its symbols and debug information, as
// distributions ship binaries: findings must then locate their calls by
// module and offset, which the test resolves to lines with addr2line on the
// unstripped build, as a user would),
// sameoutput=1 (the program's standard output and error must be byte for
// byte what a native run prints: mpivet must not change what it does),
// says=TEXT (some finding's message must contain TEXT, e.g. the program's
// message quoted from its standard error; no spaces),
// note=TEXT (some note of the report, on what limited the verification,
// must contain TEXT; no spaces),
// buffering=HOW (how reliance on buffering was looked for, the first word
// of the report's buffering field: offline, from the records, or run, by
// running the program again with zero buffering),
// plugin=1 (the program loads MPI at run time: the source is built twice,
// as a shared object with the MPI's wrapper and -DPLUGIN, and as a program
// with the plain C compiler, not linked against MPI, which dlopens the
// shared object given as its first argument; mpivet is told the MPI with
// --mpi),
// atmost=N (the exploration may run at most N interleavings: a reduction's
// bound, where the exact count depends on timing),
// stopped=WORD (the report's reason for stopping early contains WORD, e.g.
// budget; a complete verdict names the bounds it is complete within),
// cflags=FLAGS (compiler flags after the default -g -O0, comma separated:
// cflags=-O2 builds the program optimised),
// infeasible=N (at most N replays may force a match that could not happen;
// by default none may: every forced decision is checked against the
// buffering its replay was given, seed 001's minimal slack).
//
// A C or C++ program that includes <omp.h> is compiled with -fopenmp.
//
// Without an MPI the tests skip, except under CI=true, where they fail.
// A third MPI, openmpi5 (Open MPI 5 from third_party, openmpi5_test.go),
// runs a chosen part of the programs; their mpi= and want(openmpi) name
// its family, openmpi.
package corpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"mpivet/check"
	"mpivet/launch"
	"mpivet/report"
)

var mpivetBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mpivet-corpus-")
	if err != nil {
		panic(err)
	}
	mpivetBin = filepath.Join(dir, "mpivet")
	out, err := exec.Command("go", "build", "-o", mpivetBin, "mpivet/cmd/mpivet").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building mpivet: %v\n%s", err, out)
		os.Exit(1)
	}
	flag.Parse()
	warmLayers(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Program is one corpus program and its expectations.
type Program struct {
	Path          string
	NP            int
	Args          []string
	Timeout       string
	Verdict       string
	MPI           string
	NoLocation    []string
	Flags         []string       // extra mpivet flags
	Interleavings int            // expected number of interleavings (0: not checked)
	AtMost        int            // the most interleavings expected (0: not checked)
	Stopped       string         // a word of the reason the verification stopped early
	Infeasible    int            // replays allowed to force a match that could not happen
	Strip         bool           // run the program stripped
	CFlags        []string       // compiler flags after the default ones
	SameOutput    bool           // the program prints the same with and without mpivet
	Says          []string       // texts that findings' messages must contain
	Notes         []string       // texts that the report's notes must contain
	Buffering     string         // how reliance on buffering was looked for (first word)
	Plugin        bool           // MPI comes in with a dlopen'ed plugin built from the same source
	Dir           string         // the working directory of mpivet and the program ("": the test's)
	Env           []string       // added to mpivet's environment (the MPI that runs it)
	Wants         map[int][]want // line -> kinds
}

// want is one expected finding; mpi restricts it to one MPI ("want(mpich)").
type want struct{ kind, mpi string }

var (
	headerRE  = regexp.MustCompile(`^\s*(?://|!|#|/?\*)\s*mpivet:\s*(.*)$`)
	commentRE = regexp.MustCompile(`(?://|!|#)(.*)$`)
	wantRE    = regexp.MustCompile(`\bwant(?:\((\w+)\))?\s+((?:"[^"]+"\s*)+)`)
	kindRE    = regexp.MustCompile(`"([^"]+)"`)
)

// Parse reads a program's expectations.
func Parse(path string) (*Program, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p := &Program{Path: path, NP: 2, Timeout: "60s", Wants: map[int][]want{}}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if m := headerRE.FindStringSubmatch(text); m != nil {
			for _, opt := range strings.Fields(m[1]) {
				k, v, _ := strings.Cut(opt, "=")
				switch k {
				case "np":
					p.NP, _ = strconv.Atoi(v)
				case "args":
					p.Args = strings.Split(v, ",")
				case "timeout":
					p.Timeout = v
				case "verdict":
					p.Verdict = v
				case "mpi":
					p.MPI = v
				case "nolocation":
					p.NoLocation = append(p.NoLocation, v)
				case "flags":
					p.Flags = strings.Split(v, ",")
				case "strip":
					p.Strip = v == "1"
				case "cflags":
					p.CFlags = strings.Split(v, ",")
				case "says":
					p.Says = append(p.Says, v)
				case "note":
					p.Notes = append(p.Notes, v)
				case "sameoutput":
					p.SameOutput = v == "1"
				case "buffering":
					p.Buffering = v
				case "plugin":
					p.Plugin = v == "1"
				case "infeasible":
					n, err := strconv.Atoi(v)
					if err != nil {
						return nil, fmt.Errorf("%s:%d: infeasible=%s", path, line, v)
					}
					p.Infeasible = n
				case "interleavings", "atmost":
					n, err := strconv.Atoi(v)
					if err != nil {
						return nil, fmt.Errorf("%s:%d: %s=%s", path, line, k, v)
					}
					if k == "atmost" {
						p.AtMost = n
					} else {
						p.Interleavings = n
					}
				case "stopped":
					p.Stopped = v
				default:
					return nil, fmt.Errorf("%s:%d: unknown option %q", path, line, k)
				}
			}
		}
		comment := ""
		if m := commentRE.FindStringSubmatch(text); m != nil {
			comment = m[1]
		}
		for _, m := range wantRE.FindAllStringSubmatch(comment, -1) {
			for _, k := range kindRE.FindAllStringSubmatch(m[2], -1) {
				p.Wants[line] = append(p.Wants[line], want{kind: k[1], mpi: m[1]})
			}
		}
	}
	if p.Verdict == "" {
		return nil, fmt.Errorf("%s: no verdict in its mpivet: header", path)
	}
	return p, sc.Err()
}

type mpiImpl struct {
	name, cc, cxx, fc string
	// An MPI that is not Debian's (openmpi5.go): family is the name its
	// programs' mpi= and want(...) use, env selects it, setup makes it
	// (skipping the test when it cannot), only lists the programs it runs.
	family string
	env    []string
	setup  func(t *testing.T) mpiImpl
	only   map[string]bool
}

var impls = []mpiImpl{
	{name: "openmpi", cc: "mpicc.openmpi", cxx: "mpicxx.openmpi", fc: "mpif90.openmpi"},
	{name: "mpich", cc: "mpicc.mpich", cxx: "mpicxx.mpich", fc: "mpif90.mpich"},
}

// familyName is the name programs use for m's MPI.
func (m mpiImpl) familyName() string {
	if m.family != "" {
		return m.family
	}
	return m.name
}

func available(t *testing.T) []mpiImpl {
	var out []mpiImpl
	for _, m := range impls {
		if _, err := exec.LookPath(m.cc); err == nil {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("no MPI installed (CI must install Open MPI and MPICH: see scripts/setup)")
		}
		t.Skip("no MPI installed")
	}
	if len(out) < len(impls) && os.Getenv("CI") == "true" {
		t.Fatalf("CI needs both MPIs; found only %v", out)
	}
	return out
}

func compile(t *testing.T, m mpiImpl, src, out string, flags ...string) {
	t.Helper()
	var cc string
	switch filepath.Ext(src) {
	case ".c":
		cc = m.cc
	case ".cpp", ".cc":
		cc = m.cxx
	default:
		cc = m.fc
	}
	if _, err := exec.LookPath(cc); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s not installed", cc)
		}
		t.Skipf("%s not installed", cc)
	}
	// Fortran modules (.mod, .smod) go to the program's temporary
	// directory (-J), never to the working directory, the source tree.
	// The source keeps the path it was given: findings name the file as
	// the compiler was given it.
	args := append([]string{"-g", "-O0", "-pthread", "-o", out, src}, flags...)
	if cc == m.fc {
		args = append(args, "-J", filepath.Dir(out))
	} else if b, err := os.ReadFile(src); err == nil && bytes.Contains(b, []byte("#include <omp.h>")) {
		args = append(args, "-fopenmp") // an OpenMP program
	}
	cmd := exec.Command(cc, args...)
	if m.env != nil {
		cmd.Env = append(os.Environ(), m.env...)
	}
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", cc, src, err, b)
	}
}

// Report is the part of mpivet's JSON report the tests read.
type Report struct {
	Verdict       string          `json:"verdict"`
	Interleavings int             `json:"interleavings"`
	Coverage      report.Coverage `json:"coverage"`
	Findings      []check.Finding `json:"findings"`
	Buffering     string          `json:"buffering"`
	RunDir        string          `json:"run_dir"`
	Stopped       string          `json:"stopped"`
	Bounds        *report.Bounds  `json:"bounds"`
	Notes         []string        `json:"notes"`
}

// RunMpivet runs mpivet on a compiled program and returns its report.
func RunMpivet(t *testing.T, p *Program, bin string, extra ...string) (*Report, string, int) {
	t.Helper()
	return execMpivet(t.TempDir(), p, bin, extra...).report(t, bin)
}

// mpivetRun is one run of mpivet made by execMpivet.
type mpivetRun struct {
	dir, sarif, out string
	data            []byte // the JSON report
	code            int    // mpivet's exit status
	err             error  // mpivet did not run, or wrote no report
}

// execMpivet runs mpivet as RunMpivet does, in directory dir. It uses no
// test, so that goroutines of one test can run it together; report then
// checks each run in the test's goroutine.
func execMpivet(dir string, p *Program, bin string, extra ...string) mpivetRun {
	run := mpivetRun{dir: dir, sarif: filepath.Join(dir, "report.sarif")}
	js := filepath.Join(dir, "report.json")
	// every run also writes its HTML page and SARIF log (validated by
	// report), where extra says or in dir
	pages := []string{"--html", filepath.Join(dir, "report.html"), "--sarif", run.sarif}
	for i, a := range extra {
		if a == "--sarif" && i+1 < len(extra) {
			run.sarif = extra[i+1]
			pages = nil
		}
	}
	args := append(append([]string{"run", "-n", strconv.Itoa(p.NP), "--timeout", p.Timeout, "--json", js, "--dir", filepath.Join(dir, "run"), "--no-color"},
		pages...), extra...)
	args = append(append(args, bin), p.Args...)
	cmd := exec.Command(mpivetBin, args...)
	cmd.Dir = p.Dir
	if p.Env != nil {
		cmd.Env = append(os.Environ(), p.Env...)
	}
	out, err := cmd.CombinedOutput()
	run.out = string(out)
	if ee, ok := err.(*exec.ExitError); ok {
		run.code = ee.ExitCode()
	} else if err != nil {
		run.err = fmt.Errorf("mpivet: %v", err)
		return run
	}
	if run.data, err = os.ReadFile(js); err != nil {
		run.err = fmt.Errorf("no JSON report (exit %d):\n%s", run.code, out)
	}
	return run
}

// report checks run (its SARIF log validates, its JSON report parses; the
// report is saved where MPIVET_CORPUS_REPORTS says) and returns its
// report, output and exit status; bin is the program run.
func (run mpivetRun) report(t *testing.T, bin string) (*Report, string, int) {
	t.Helper()
	if run.err != nil {
		t.Fatal(run.err)
	}
	saveReport(t, run.data, run.dir, filepath.Dir(bin))
	checkSARIF(t, run.sarif)
	var r Report
	if err := json.Unmarshal(run.data, &r); err != nil {
		t.Fatalf("bad JSON report: %v\n%s", err, run.data)
	}
	return &r, run.out, run.code
}

// resolveStripped gives the locations of a stripped program's findings
// their lines, from the module and offset mpivet reports, with addr2line on
// the unstripped build (what the report tells a user to do). A location in
// the program with a line already, or without an offset, is an error: the
// binary had no debug information to give one.
func resolveStripped(t *testing.T, r *Report, bin, debug, out string) []string {
	t.Helper()
	var errs []string
	for i := range r.Findings {
		for j := range r.Findings[i].Locations {
			l := &r.Findings[i].Locations[j]
			if l.Module != bin {
				continue
			}
			if l.File != "" || l.Offset == "" {
				errs = append(errs, fmt.Sprintf("location in the stripped program without its offset, or with a line: %+v", *l))
				continue
			}
			if want := filepath.Base(bin) + "+" + l.Offset; !strings.Contains(out, want) {
				errs = append(errs, fmt.Sprintf("the report does not show %s", want))
			}
			b, err := exec.Command("addr2line", "-e", debug, l.Offset).Output()
			if err != nil {
				t.Fatalf("addr2line: %v", err)
			}
			file, line, _ := strings.Cut(strings.Fields(string(b))[0], ":")
			l.File, l.Path = filepath.Base(file), file
			l.Line, _ = strconv.Atoi(line)
		}
	}
	return errs
}

// Compare checks a report against a program's expectations under one MPI.
func Compare(p *Program, r *Report, impl string) []string {
	var errs []string
	base := filepath.Base(p.Path)
	met := map[string]bool{}
	for _, f := range r.Findings {
		ok := false
		for _, l := range f.Locations {
			if filepath.Base(l.File) != base {
				continue
			}
			for _, w := range p.Wants[l.Line] {
				if w.kind == f.Kind && (w.mpi == "" || w.mpi == impl) {
					ok = true
					met[fmt.Sprintf("%d:%s", l.Line, w.kind)] = true
				}
			}
		}
		for _, k := range p.NoLocation {
			if k == f.Kind {
				ok, met["nolocation:"+k] = true, true
			}
		}
		if !ok {
			errs = append(errs, fmt.Sprintf("unexpected finding %s: %s %v", f.Kind, f.Message, f.Locations))
		}
	}
	var lines []int
	for l := range p.Wants {
		lines = append(lines, l)
	}
	sort.Ints(lines)
	for _, l := range lines {
		for _, w := range p.Wants[l] {
			if (w.mpi == "" || w.mpi == impl) && !met[fmt.Sprintf("%d:%s", l, w.kind)] {
				errs = append(errs, fmt.Sprintf("%s:%d: no %s finding", base, l, w.kind))
			}
		}
	}
	for _, k := range p.NoLocation {
		if !met["nolocation:"+k] {
			errs = append(errs, fmt.Sprintf("no %s finding", k))
		}
	}
	for _, text := range p.Says {
		found := false
		for _, f := range r.Findings {
			found = found || strings.Contains(f.Message, text)
		}
		if !found {
			errs = append(errs, fmt.Sprintf("no finding says %q", text))
		}
	}
	for _, text := range p.Notes {
		found := false
		for _, n := range r.Notes {
			found = found || strings.Contains(n, text)
		}
		if !found {
			errs = append(errs, fmt.Sprintf("no note says %q", text))
		}
	}
	if how, _, _ := strings.Cut(r.Buffering, ":"); p.Buffering != "" && how != p.Buffering {
		errs = append(errs, fmt.Sprintf("buffering %q, want %s", r.Buffering, p.Buffering))
	}
	if r.Coverage.Infeasible > p.Infeasible {
		errs = append(errs, fmt.Sprintf("%d replays forced a match that could not happen with the buffering they had, want at most %d",
			r.Coverage.Infeasible, p.Infeasible))
	}
	if p.Interleavings > 0 && r.Interleavings != p.Interleavings {
		errs = append(errs, fmt.Sprintf("%d interleavings, want %d", r.Interleavings, p.Interleavings))
	}
	if p.AtMost > 0 && r.Interleavings > p.AtMost {
		errs = append(errs, fmt.Sprintf("%d interleavings, want at most %d", r.Interleavings, p.AtMost))
	}
	if p.Stopped != "" && !strings.Contains(r.Stopped, p.Stopped) {
		errs = append(errs, fmt.Sprintf("stopped %q, want a reason with %q", r.Stopped, p.Stopped))
	}
	if r.Verdict == "ok" && r.Coverage.Events > 0 && r.Bounds == nil {
		errs = append(errs, "a complete verdict of an exploration does not name its bounds")
	}
	if r.Verdict != p.Verdict {
		errs = append(errs, fmt.Sprintf("verdict %q, want %q", r.Verdict, p.Verdict))
	}
	return errs
}

func programs(t *testing.T) []string {
	var out []string
	for _, pat := range []string{"*.c", "*.cpp", "*.f", "*.f90", "*.py"} {
		m, _ := filepath.Glob(filepath.Join("..", "testdata", "programs", pat))
		out = append(out, m...)
	}
	sort.Strings(out)
	if len(out) == 0 {
		t.Fatal("no corpus programs")
	}
	return out
}

// serial runs the corpus one program, and one test, at a time
// (MPIVET_CORPUS_SERIAL=1). By default as many run at once as go test's
// -parallel allows (the cores), the corpus programs and every other test
// of the package mixed: most of a program's time under mpivet is waiting,
// for the launcher's start-up, for a stalled run to be judged (1 s), for
// replays, so two at a time on two cores take much less wall time than
// one, and no result depends on the load (no timing assertions). Every
// test works in directories of its own, and looks only for processes of
// its own run directory.
var serial = os.Getenv("MPIVET_CORPUS_SERIAL") == "1"

// parallel lets test t run beside the others, unless serial.
func parallel(t *testing.T) {
	if !serial {
		t.Parallel()
	}
}

func TestCorpus(t *testing.T) {
	parallel(t)
	impls := append(available(t), openMPI5)
	bins := t.TempDir()
	for _, src := range programs(t) {
		p0, err := Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))
		for _, m := range impls {
			if p0.MPI != "" && p0.MPI != m.familyName() || m.only != nil && !m.only[name] {
				continue
			}
			t.Run(name+"/"+m.name, func(t *testing.T) {
				if !serial {
					t.Parallel()
				}
				if m.setup != nil {
					m = m.setup(t)
				}
				p := &Program{}
				*p = *p0 // its arguments may be completed below
				p.Env = m.env
				bin := filepath.Join(bins, name+"-"+m.name)
				flags := p.Flags
				switch {
				case filepath.Ext(src) == ".py":
					bin = python(t, p)
				case p.Plugin:
					buildPlugin(t, m, src, bin)
					p.Args = append([]string{bin + ".so"}, p.Args...)
					flags = append([]string{"--mpi=" + m.name}, flags...)
				default:
					compile(t, m, src, bin, p.CFlags...)
				}
				var errs []string
				if p.Strip {
					debug := bin + ".debug"
					if err := os.Rename(bin, debug); err != nil {
						t.Fatal(err)
					}
					if b, err := exec.Command("strip", "-o", bin, debug).CombinedOutput(); err != nil {
						t.Fatalf("strip: %v\n%s", err, b)
					}
				}
				r, out, code := RunMpivet(t, p, bin, flags...)
				if p.Strip {
					errs = append(errs, resolveStripped(t, r, bin, bin+".debug", out)...)
				}
				wantCode := map[string]int{"ok": 0, "error": 1, "incomplete": 3}[p.Verdict]
				errs = append(errs, Compare(p, r, m.familyName())...)
				if code != wantCode {
					errs = append(errs, fmt.Sprintf("exit status %d, want %d", code, wantCode))
				}
				if len(errs) > 0 {
					t.Errorf("%s:\n  %s\nmpivet output:\n%s", src, strings.Join(errs, "\n  "), out)
				}
				if p.SameOutput && m.env == nil { // sameOutput runs the launcher in this process's environment
					sameOutput(t, p, bin)
				}
			})
		}
	}
}

// python returns the interpreter that runs a corpus script, and makes the
// script (as an absolute path) its first argument. Debian's python3, whose
// mpi4py and NumPy scripts/setup installs: the python3 first on PATH may be
// another build.
func python(t *testing.T, p *Program) string {
	t.Helper()
	const interp = "/usr/bin/python3"
	if err := exec.Command(interp, "-c", "import mpi4py, numpy").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s has no mpi4py or NumPy (scripts/setup installs python3-mpi4py and python3-numpy)", interp)
		}
		t.Skipf("%s has no mpi4py or NumPy", interp)
	}
	abs, err := filepath.Abs(p.Path)
	if err != nil {
		t.Fatal(err)
	}
	p.Args = append([]string{abs}, p.Args...) // p is the subtest's copy
	return interp
}

// buildPlugin builds a plugin=1 program: bin, not linked against MPI, and
// bin.so, built with the MPI's wrapper, which bin takes as its first
// argument and dlopens.
func buildPlugin(t *testing.T, m mpiImpl, src, bin string) {
	t.Helper()
	if b, err := exec.Command(m.cc, "-g", "-O0", "-shared", "-fPIC", "-DPLUGIN", "-o", bin+".so", src).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", m.cc, src, err, b)
	}
	if b, err := exec.Command("cc", "-g", "-O0", "-o", bin, src, "-ldl").CombinedOutput(); err != nil {
		t.Fatalf("cc %s: %v\n%s", src, err, b)
	}
}

// sameOutput runs the program natively and under mpivet, and fails if
// mpivet changed what the program printed: its standard output (up to
// mpivet's report) and its standard error (without mpivet's own lines,
// which start with "mpivet:") must be byte for byte the same. The program
// must print deterministically (from one rank, say).
func sameOutput(t *testing.T, p *Program, bin string) {
	t.Helper()
	sess, err := launch.Prepare(launch.Options{NP: p.NP, Program: bin})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run := func(args ...string) (string, string) {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = sess.Env(), dir, &stdout, &stderr
		cmd.Run() // the status is compared elsewhere; the output here
		return stdout.String(), stderr.String()
	}
	nout, nerr := run(append(append(sess.Launcher(), bin), p.Args...)...)
	args := append([]string{mpivetBin, "run", "-n", strconv.Itoa(p.NP), "--timeout", p.Timeout, "--dir", filepath.Join(dir, "run"), "--no-color"}, p.Flags...)
	vout, verr := run(append(append(args, bin), p.Args...)...)
	if i := strings.Index(vout, "\n== mpivet: "); i >= 0 {
		vout = vout[:i]
	} else {
		t.Errorf("no report in mpivet's output:\n%s", vout)
	}
	var own []string
	for _, l := range strings.SplitAfter(verr, "\n") {
		if !strings.HasPrefix(l, "mpivet:") {
			own = append(own, l)
		}
	}
	verr = strings.Join(own, "")
	if nout != vout {
		t.Errorf("standard output differs:\nnative:\n%s\nunder mpivet:\n%s", nout, vout)
	}
	if nerr != verr {
		t.Errorf("standard error differs:\nnative:\n%s\nunder mpivet:\n%s", nerr, verr)
	}
}
