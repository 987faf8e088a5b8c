package corpus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"mpivet/internal/junitcheck"
	"mpivet/suite"
)

// rootEnv lets Open MPI's launcher run as root, as a suite run by root
// sets it.
var rootEnv = []string{"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"}

// runExec runs mpivet (or the command args[0], when it is not a flag
// or a subcommand of mpivet's: ctest) with args in dir, with env added,
// and returns its standard output, standard error and exit status.
func runExec(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(mpivetBin, args...)
	if args[0] == "ctest" {
		cmd = exec.Command(args[0], args[1:]...)
	}
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), rootEnv...), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// launches reads the records of a suite's launches, and checks that each
// verified one has its JSON report, with the verdict its record says.
func launches(t *testing.T, dir string, want int) []suite.Launch {
	t.Helper()
	ls, err := suite.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != want {
		t.Fatalf("%d launches recorded, want %d: %+v", len(ls), want, ls)
	}
	for i, l := range ls {
		if l.Index != i+1 || filepath.Base(l.Dir) != fmt.Sprintf("%04d", i+1) {
			t.Errorf("launch %d: index %d in %s", i+1, l.Index, l.Dir)
		}
		var r Report
		data, err := os.ReadFile(l.Report())
		switch {
		case !l.Verified && err == nil:
			t.Errorf("launch %d, not verified, has a report", l.Index)
		case l.Verified && err != nil:
			t.Errorf("launch %d, verified, has no report: %v", l.Index, err)
		case l.Verified:
			if json.Unmarshal(data, &r) != nil || r.Verdict != l.Verdict {
				t.Errorf("launch %d: record says %q, report %q", l.Index, l.Verdict, r.Verdict)
			}
		}
	}
	return ls
}

// expect checks a launch's record: verified or not (with a word of the
// reason), its verdict and its exit status.
func expect(t *testing.T, l suite.Launch, verified bool, verdictOrReason string, status int) {
	t.Helper()
	ok := l.Verified == verified && l.Status == status
	if verified {
		ok = ok && l.Verdict == verdictOrReason
	} else {
		ok = ok && strings.Contains(l.Reason, verdictOrReason)
	}
	if !ok {
		t.Errorf("launch %d (%s): verified %v, verdict %q, reason %q, status %d; want verified %v, %q, status %d",
			l.Index, strings.Join(l.Command, " "), l.Verified, l.Verdict, l.Reason, l.Status, verified, verdictOrReason, status)
	}
}

// A shell script's launches under mpivet exec, under each MPI: each prints
// and exits as natively, the buggy one is reported, the non-MPI and MPMD
// ones pass through unchecked, the launcher's -x/-genv and -wdir reach the
// program, and mpivet exec exits 1 for the error found.
func TestExecScript(t *testing.T) {
	parallel(t)
	for _, m := range available(t) {
		t.Run(m.name, func(t *testing.T) {
			dir := t.TempDir()
			compile(t, m, filepath.Join("..", "testdata", "programs", "fig2_8_leak.c"), filepath.Join(dir, "leak"))
			compile(t, m, filepath.Join("..", "testdata", "suite", "env_wdir.c"), filepath.Join(dir, "env_wdir"))
			os.Mkdir(filepath.Join(dir, "work"), 0o755)
			env := []string{"L=mpirun.openmpi", "ENVOPTS=-x SUITE_A=one -x SUITE_B=two"}
			if m.name == "mpich" {
				env = []string{"L=mpiexec.mpich", "ENVOPTS=-genv SUITE_A one -env SUITE_B two"}
			}
			script, _ := filepath.Abs(filepath.Join("..", "testdata", "suite", "suite.sh"))
			sdir := filepath.Join(dir, "suite")
			junit := filepath.Join(dir, "suite.xml")
			out, errs, code := runExec(t, dir, env, "exec", "--timeout", "60s", "--suite", sdir, "--junit", junit,
				"--json", filepath.Join(dir, "suite.json"), "--sarif", filepath.Join(dir, "suite.sarif"), "--", script)
			for _, want := range []string{"hostname: ok", "size=2 A=one B=two dir=work", "size=2 A=- B=- dir=", "env_wdir 3: status 3"} {
				if !strings.Contains(out, want) {
					t.Errorf("the output does not say %q", want)
				}
			}
			if code != 1 || strings.Contains(out, "leak: status") || strings.Count(errs, "mpivet: launch ") != 2 ||
				!strings.Contains(errs, "mpivet: launch 0001 (") {
				t.Fatalf("exit %d; stdout:\n%s\nstderr:\n%s", code, out, errs)
			}
			checkExecJUnit(t, junit, 5, 2, 2)
			checkSuiteMerged(t, filepath.Join(dir, "suite.json"), filepath.Join(dir, "suite.sarif"), 5)
			ls := launches(t, sdir, 5)
			expect(t, ls[0], true, "error", 0)
			expect(t, ls[1], false, "not an MPI program", 0)
			expect(t, ls[2], true, "ok", 0)
			expect(t, ls[3], false, "MPMD", 0)
			expect(t, ls[4], true, "error", 3)
			if ls[2].WorkDir != dir || ls[2].Ranks != 2 || ls[2].Program != "../env_wdir" {
				t.Errorf("launch 3 recorded as %+v", ls[2])
			}
		})
	}
}

// mpivet exec exits with its command's status when no launch has an
// error; a launch running when --suite-budget ends stops there, and once
// it is spent, launches run unchecked; a suite directory is not used twice.
func TestExecStatusAndBudget(t *testing.T) {
	parallel(t)
	m := available(t)[0]
	dir := t.TempDir()
	compile(t, m, filepath.Join("..", "testdata", "suite", "env_wdir.c"), filepath.Join(dir, "env_wdir"))
	launcher := map[string]string{"openmpi": "mpirun.openmpi", "mpich": "mpiexec.mpich"}[m.name]
	sdir := filepath.Join(dir, "suite")
	out, errs, code := runExec(t, dir, nil, "exec", "--suite", sdir, "--suite-budget", "1ns", "--",
		"sh", "-c", launcher+" -n 2 ./env_wdir; exit 5")
	if code != 5 || !strings.Contains(out, "size=2 A=- B=-") {
		t.Fatalf("exit %d; stdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	expect(t, launches(t, sdir, 1)[0], false, "budget", 0)
	// A launch still verifying when the suite's budget ends stops there.
	compile(t, m, filepath.Join("..", "testdata", "programs", "spin_timeout.c"), filepath.Join(dir, "spin"))
	sdir2 := filepath.Join(dir, "suite2")
	start := time.Now()
	out, errs, code = runExec(t, dir, nil, "exec", "--suite", sdir2, "--suite-budget", "4s", "--timeout", "60s", "--", launcher, "-n", "3", "./spin")
	l := launches(t, sdir2, 1)[0]
	var r Report
	data, _ := os.ReadFile(l.Report())
	json.Unmarshal(data, &r)
	if time.Since(start) > 30*time.Second || code != 130 || !strings.Contains(r.Stopped, "suite's budget") {
		t.Errorf("a launch at the suite's end: exit %d after %v, stopped %q\n%s%s", code, time.Since(start), r.Stopped, out, errs)
	}
	expect(t, l, true, "incomplete", 130)
	// Bad input: exit 2, a message, and no suite directory.
	for _, args := range [][]string{{"no-such-command-here"}, {"--suite-budget", "-1s", "true"}, {"--budget", "-1s", "true"}} {
		sdir3 := filepath.Join(dir, "suite3")
		out, errs, code := runExec(t, dir, nil, append([]string{"exec", "--suite", sdir3}, args...)...)
		if _, err := os.Stat(sdir3); code != 2 || !strings.Contains(errs, "mpivet: ") || err == nil {
			t.Errorf("mpivet exec %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
		}
	}
	// A suite directory that holds launches is refused.
	if out, errs, code := runExec(t, dir, nil, "exec", "--suite", sdir, "--", "true"); code != 2 || !strings.Contains(errs, "earlier suite") {
		t.Errorf("a used suite directory: exit %d\n%s%s", code, out, errs)
	}
}

// Ctrl-C stops the suite: the running launch reports what it found
// (incomplete), a launch started after it (by a command that goes on
// after an interrupt) runs nothing, and the summary is written.
func TestExecInterrupt(t *testing.T) {
	parallel(t)
	for _, m := range available(t) {
		t.Run(m.name, func(t *testing.T) {
			dir := t.TempDir()
			compile(t, m, filepath.Join("..", "testdata", "programs", "spin_timeout.c"), filepath.Join(dir, "spin"))
			launcher := map[string]string{"openmpi": "mpirun.openmpi", "mpich": "mpiexec.mpich"}[m.name]
			sdir := filepath.Join(dir, "suite")
			cmd := exec.Command(mpivetBin, "exec", "--suite", sdir, "--", "sh", "-c",
				"trap 'echo trapped' INT; "+launcher+" -n 3 ./spin; "+launcher+" -n 3 ./spin; echo second: $?")
			cmd.Dir, cmd.Env = dir, append(os.Environ(), rootEnv...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Once the first launch's ranks run, interrupt.
			deadline := time.Now().Add(60 * time.Second)
			for {
				if ps, _ := filepath.Glob(filepath.Join(sdir, "launches", "0001", "run", "p.*.state")); len(ps) == 3 {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("the first launch did not start:\n%s", out.String())
				}
				time.Sleep(100 * time.Millisecond)
			}
			time.Sleep(500 * time.Millisecond)
			cmd.Process.Signal(syscall.SIGINT)
			done := make(chan error)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("mpivet exec did not end after the interrupt:\n%s", out.String())
			}
			if !strings.Contains(out.String(), "second: 130") || !strings.Contains(out.String(), ", 2 launches ==") {
				t.Errorf("output:\n%s", out.String())
			}
			ls := launches(t, sdir, 2)
			expect(t, ls[0], true, "incomplete", 130)
			expect(t, ls[1], false, "interrupted", 130)
		})
	}
}

// A CMake project's MPI tests, run by ctest -j2 with MPIEXEC_EXECUTABLE a
// link to mpivet named mpiexec, under each MPI: every launch has its own
// directory (two at once), ctest passes or fails as natively, and the
// records say what mpivet found.
func TestCtest(t *testing.T) {
	parallel(t)
	if _, err := exec.LookPath("ctest"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("cmake is not installed (scripts/setup installs it)")
		}
		t.Skip("cmake is not installed")
	}
	for _, m := range available(t) {
		t.Run(m.name, func(t *testing.T) {
			dir := t.TempDir()
			link := filepath.Join(dir, "bin", "mpiexec")
			os.Mkdir(filepath.Dir(link), 0o755)
			if err := os.Symlink(mpivetBin, link); err != nil {
				t.Fatal(err)
			}
			src, _ := filepath.Abs(filepath.Join("..", "testdata", "suite", "cmake"))
			build := filepath.Join(dir, "build")
			for _, c := range [][]string{
				{"cmake", "-S", src, "-B", build, "-DMPI_C_COMPILER=" + m.cc, "-DMPIEXEC_EXECUTABLE=" + link},
				{"cmake", "--build", build},
			} {
				if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", strings.Join(c, " "), err, out)
				}
			}
			sdir := filepath.Join(dir, "suite")
			out, errs, code := runExec(t, build, []string{suite.EnvSuite + "=" + sdir, suite.EnvUserFlags + "=--timeout 60s"}, "ctest", "-j2")
			if code != 0 || !strings.Contains(out, "100% tests passed") {
				t.Fatalf("ctest: exit %d\n%s\n%s", code, out, errs)
			}
			ls := launches(t, sdir, 4)
			byTest := map[string]suite.Launch{}
			for _, l := range ls {
				name := filepath.Base(l.Program)
				if len(l.Args) > 0 {
					name += " " + strings.Join(l.Args, " ")
				}
				byTest[name] = l
			}
			expect(t, byTest["leak"], true, "error", 0)
			expect(t, byTest["env_wdir"], true, "ok", 0)
			expect(t, byTest["env_wdir 3"], true, "error", 3)
			expect(t, byTest["hostname"], false, "not an MPI program", 0)
			// the suite's reports, after ctest
			junit := filepath.Join(dir, "suite.xml")
			if out, _, code := runExec(t, dir, nil, "suite-report", "--junit", junit, "--json", filepath.Join(dir, "suite.json"),
				"--sarif", filepath.Join(dir, "suite.sarif"), sdir); code != 1 {
				t.Errorf("mpivet suite-report: exit %d, want 1 (errors found)\n%s", code, out)
			}
			checkExecJUnit(t, junit, 4, 2, 1)
			checkSuiteMerged(t, filepath.Join(dir, "suite.json"), filepath.Join(dir, "suite.sarif"), 4)
		})
	}
}

// A pytest suite launching mpi4py scripts (Open MPI: Debian's mpi4py) under
// mpivet exec: the tests pass as natively (the line mpivet prints for a
// launch with errors goes to the test's captured standard error), the
// leaked request is found (exit 1), and a Python launch that does not use mpi4py passes through.
func TestExecPytest(t *testing.T) {
	parallel(t)
	if _, err := exec.LookPath("mpirun.openmpi"); err != nil {
		t.Skip("no Open MPI")
	}
	if exec.Command("/usr/bin/python3", "-c", "import pytest, mpi4py").Run() != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3-pytest or python3-mpi4py is not installed (scripts/setup installs them)")
		}
		t.Skip("no pytest or mpi4py for /usr/bin/python3")
	}
	dir := t.TempDir()
	tests, _ := filepath.Abs(filepath.Join("..", "testdata", "suite", "pytest"))
	sdir := filepath.Join(dir, "suite")
	// (no __pycache__ nor .pytest_cache in the source tree)
	junit := filepath.Join(dir, "suite.xml")
	out, errs, code := runExec(t, dir, []string{"PYTHONDONTWRITEBYTECODE=1"}, "exec", "--timeout", "120s", "--suite", sdir, "--junit", junit,
		"--json", filepath.Join(dir, "suite.json"), "--sarif", filepath.Join(dir, "suite.sarif"), "--",
		"/usr/bin/python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", tests)
	if code != 1 || !strings.Contains(out, "3 passed") {
		t.Fatalf("exit %d; stdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	ls := launches(t, sdir, 3)
	expect(t, ls[0], true, "ok", 0)
	expect(t, ls[1], true, "error", 0)
	expect(t, ls[2], false, "does not use mpi4py", 0)
	checkExecJUnit(t, junit, 3, 1, 1)
	checkSuiteMerged(t, filepath.Join(dir, "suite.json"), filepath.Join(dir, "suite.sarif"), 3)
}

// checkExecJUnit checks a suite's JUnit report: valid, with n testcases
// (one per launch), failed of them with failures and skipped skipped.
func checkExecJUnit(t *testing.T, path string, n, wantFailed, wantSkipped int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("mpivet exec --junit: %v", err)
	}
	root, cases, err := junitcheck.OneSuite(data)
	if err != nil {
		t.Fatalf("mpivet exec --junit: %v\n%s", err, data)
	}
	if probs := junitcheck.Check(root); len(probs) > 0 {
		t.Errorf("mpivet exec --junit: not valid JUnit: %v", probs)
	}
	failed, skipped := 0, 0
	for _, c := range cases {
		if len(junitcheck.Kids(c, "failure")) > 0 {
			failed++
		}
		if len(junitcheck.Kids(c, "skipped")) > 0 {
			skipped++
		}
	}
	if len(cases) != n || failed != wantFailed || skipped != wantSkipped {
		t.Errorf("JUnit report: %d testcases, %d failed, %d skipped; want %d, %d, %d:\n%s", len(cases), failed, skipped, n, wantFailed, wantSkipped, data)
	}
}

// checkSuiteMerged checks a suite's JSON (n launches, each verified one
// with its report) and its SARIF log (valid, one run, each fingerprint of
// the launches' findings once, naming the launches that found it).
func checkSuiteMerged(t *testing.T, jsonPath, sarifPath string, n int) {
	t.Helper()
	data, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Launches []struct {
			Index  int
			Report *Report
		}
	}
	if err := json.Unmarshal(data, &s); err != nil || len(s.Launches) != n {
		t.Fatalf("the suite's JSON (%v), want %d launches: %s", err, n, data)
	}
	fps := map[string][]int{}
	for _, l := range s.Launches {
		if l.Report == nil {
			continue
		}
		for _, f := range l.Report.Findings {
			if !slices.Contains(fps[f.Fingerprint], l.Index) {
				fps[f.Fingerprint] = append(fps[f.Fingerprint], l.Index)
			}
		}
	}
	if len(fps) == 0 {
		t.Fatalf("the suite's JSON has no findings: %s", data)
	}
	checkSuiteSARIF(t, sarifPath, fps)
}
