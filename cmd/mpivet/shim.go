package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"mpivet/check"
	"mpivet/driver"
	"mpivet/mpi"
	"mpivet/report"
	"mpivet/suite"
)

// launchFlags are the flags of mpivet run that a launch's own command line
// sets (the ranks), or that the suite sets per launch (its run directory),
// or that a launch's hosts set (the launcher): not flags of mpivet exec.
var launchFlags = map[string]bool{"np": true, "dir": true, "launcher": true}

// verifyFlags declares in fs the verification flags of mpivet run, bound
// to o, without launchFlags.
func verifyFlags(fs *pflag.FlagSet, o *driver.Options) {
	all := pflag.NewFlagSet("run", pflag.ContinueOnError)
	o.Flags(all, false)
	all.VisitAll(func(f *pflag.Flag) {
		if !launchFlags[f.Name] {
			fs.AddFlag(f)
		}
	})
}

// parseVerifyFlags reads verification flags (as changedFlags wrote them,
// or as a user wrote them in $MPIVET_FLAGS) into options.
func parseVerifyFlags(args []string) (driver.Options, error) {
	o := driver.Defaults()
	fs := pflag.NewFlagSet("mpivet", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	verifyFlags(fs, &o)
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("%q: not a flag", fs.Arg(0))
	}
	o.NP, o.Program = 1, "program" // (the launch's are checked with it)
	err := o.Validate()
	o.NP, o.Program = 0, ""
	return o, err
}

// changedFlags are the flags given in fs, but those of skip, as
// --name=value.
func changedFlags(fs *pflag.FlagSet, skip ...string) []string {
	var out []string
	fs.Visit(func(f *pflag.Flag) {
		for _, s := range skip {
			if f.Name == s {
				return
			}
		}
		out = append(out, "--"+f.Name+"="+f.Value.String())
	})
	return out
}

// shimFlags are the verification flags of a launch made through a shim:
// mpivet exec's, or outside it a launcher link's ($MPIVET_FLAGS).
func shimFlags() []string {
	if js := os.Getenv(suite.EnvFlags); js != "" {
		var flags []string
		if json.Unmarshal([]byte(js), &flags) == nil {
			return flags
		}
	}
	return strings.Fields(os.Getenv(suite.EnvUserFlags))
}

// executable is mpivet's own executable, links resolved.
func executable() string {
	exe, err := os.Executable()
	if err != nil {
		return os.Args[0]
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		return r
	}
	return exe
}

// suiteDir is the suite directory of a launch: $MPIVET_SUITE, else
// suite.DefaultDir in the working directory.
func suiteDir() string {
	d := os.Getenv(suite.EnvSuite)
	if d == "" {
		d = suite.DefaultDir
	}
	if a, err := filepath.Abs(d); err == nil {
		return a
	}
	return d
}

// shim is one launch made through launcher (one of suite.Launchers) with
// args, verified with the verification flags when mpivet can, else run by
// the real launcher unchanged. It returns the launch's exit status, the
// program's as natively.
func shim(launcher string, args, flags []string) int {
	env := os.Environ() // as the launch had it: for one run unchanged
	wd, _ := os.Getwd()
	realPath := os.Getenv(suite.EnvPath)
	if realPath == "" {
		realPath = suite.RealPath(os.Getenv("PATH"), executable())
	}
	os.Setenv("PATH", realPath) // mpivet's own run finds the real launcher
	// mpiexec --version, --help: not a launch.
	if suite.Query(args) {
		return passThrough(&suite.Launch{}, launcher, args, realPath, env, wd)
	}
	dir := suiteDir()
	l, err := suite.NewLaunch(dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mpivet: cannot record the launch in %s (%v): it runs unchecked\n", dir, err)
		return passThrough(&suite.Launch{}, launcher, args, realPath, env, wd)
	}
	l.Command, l.WorkDir = append([]string{launcher}, args...), wd
	if suite.Stopped(dir) {
		l.Reason, l.Status = "the suite was interrupted before this launch", exitKilled
		return saved(l)
	}
	spec := suite.Parse(launcher, args)
	l.Program, l.Args, l.Ranks = spec.Program, spec.Args, spec.NP
	o, err := parseVerifyFlags(flags)
	reason := spec.Unsupported
	switch {
	case err != nil:
		reason = "mpivet's flags: " + err.Error()
	case reason == "" && suite.Spent(time.Now()):
		reason = "the suite's budget (--suite-budget) is spent"
	case reason == "":
		reason = prepareLaunch(spec, &o, launcher)
	}
	if reason != "" {
		l.Reason = reason
		return passThrough(l, launcher, args, realPath, env, wd)
	}
	return verifyLaunch(l, o, launcher, args, realPath, env, wd)
}

// prepareLaunch sets the launch's environment and working directory as
// its launcher would for its program, and finds the program's MPI; it
// returns why the launch is not verified, or "".
func prepareLaunch(spec *suite.Spec, o *driver.Options, launcher string) string {
	if spec.WorkDir != "" {
		if err := os.Chdir(spec.WorkDir); err != nil {
			return fmt.Sprintf("working directory %s: %v", spec.WorkDir, err)
		}
	}
	for _, kv := range spec.Env {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
	inst, reason := suite.Classify(spec.Program, spec.Args, o.MPI)
	if inst == nil {
		return reason
	}
	if implied := suite.ImpliedMPI(launcher); implied != "" && implied != string(inst.Impl) {
		return fmt.Sprintf("%s launches %s programs, and this one uses %s", launcher, implied, inst.Impl.Pretty())
	}
	o.NP, o.Program, o.Args = spec.NP, spec.Program, spec.Args
	if len(spec.Hosts) > 0 {
		l := []string{inst.Launcher}
		if inst.Impl == mpi.OpenMPI {
			l = append(l, "--oversubscribe")
		}
		o.Launcher = strings.Join(append(l, spec.Hosts...), " ")
	}
	if left := time.Until(suite.Deadline()); !suite.Deadline().IsZero() && o.Budget > left {
		o.Budget = left
	}
	return ""
}

// verifyLaunch runs the launch under mpivet, with its report in its
// directory; when mpivet fails before the program ran, the launch runs
// unchecked instead.
func verifyLaunch(l *suite.Launch, o driver.Options, launcher string, args []string, realPath string, env []string, wd string) int {
	status := -1
	notes, _ := os.Create(filepath.Join(l.Dir, "notices.txt"))
	if notes != nil {
		defer notes.Close()
	}
	o.Dir = filepath.Join(l.Dir, "run")
	o.IO = driver.IO{
		Notify: func(msg string) {
			if notes != nil {
				fmt.Fprintln(notes, msg)
			}
		},
		Status: func(s int) { status = s },
	}
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		o.IO.Stdin = os.Stdin
	}
	// An automatic budget ends at the suite's end too (the report says why).
	ctx := context.Background()
	if d := suite.Deadline(); !d.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadlineCause(ctx, d, errors.New("the suite's budget (--suite-budget) is spent"))
		defer cancel()
	}
	sig := catchInterrupts(ctx)
	rep, err := driver.Verify(sig.ctx, o)
	sig.stop()
	if err != nil {
		l.MpivetStatus, l.Reason, l.Error = exitFailure, "mpivet could not verify it: "+err.Error(), err.Error()
		if status < 0 {
			os.Chdir(wd)
			return passThrough(l, launcher, args, realPath, env, wd)
		}
		l.Status = status
		return saved(l)
	}
	l.Verified, l.Verdict, l.MpivetStatus, l.Status = true, rep.Verdict, rep.ExitCode(), status
	if status < 0 {
		l.Status = 1 // the program did not run to an end (mpivet stopped before)
	}
	if err := writeLaunchReports(l, rep); err != nil {
		fmt.Fprintf(os.Stderr, "mpivet: launch %04d: %v\n", l.Index, err)
	}
	if rep.Verdict == "error" {
		fmt.Fprintf(os.Stderr, "mpivet: launch %04d (%s): %s: %s\n", l.Index, strings.Join(l.Command, " "),
			errorKinds(rep.Findings), filepath.Join(l.Dir, "report.txt"))
	}
	return saved(l)
}

// errorKinds says how many errors a report has, and of which kinds.
func errorKinds(fs []check.Finding) string {
	n, kinds := 0, map[string]bool{}
	for _, f := range fs {
		if f.Severity == check.Error {
			n++
			kinds[f.Kind] = true
		}
	}
	var ks []string
	for k := range kinds {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	s := "s"
	if n == 1 {
		s = ""
	}
	return fmt.Sprintf("%d error%s (%s)", n, s, strings.Join(ks, ", "))
}

// writeLaunchReports writes a launch's JSON report (suite.ReportFile)
// and its text report (report.txt).
func writeLaunchReports(l *suite.Launch, rep *report.Report) error {
	if err := report.WriteJSON(l.Report(), rep); err != nil {
		return fmt.Errorf("cannot write the JSON report: %v", err)
	}
	f, err := os.Create(filepath.Join(l.Dir, "report.txt"))
	if err != nil {
		return err
	}
	defer f.Close()
	return report.NewText(f, false).Print(rep)
}

// passThrough runs the launch with the real launcher, unchanged (in its
// environment env and working directory wd), and records it.
func passThrough(l *suite.Launch, launcher string, args []string, realPath string, env []string, wd string) int {
	real, err := suite.LookPath(launcher, realPath)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mpivet: %s: the real launcher is not in PATH (%s)\n", launcher, realPath)
		l.Status = 127
		return saved(l)
	}
	cmd := exec.Command(real, args...)
	cmd.Env, cmd.Dir = env, wd
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// This process outlives the launcher, to record how it ended. SIGINT
	// comes to the whole process group (a terminal's, mpivet exec's): the
	// launcher has it already; SIGTERM and SIGHUP may be this process's
	// alone, and are passed on.
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(ch)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "mpivet: %s: %v\n", real, err)
		l.Status = 127
		return saved(l)
	}
	go func() {
		for s := range ch {
			if s != syscall.SIGINT {
				cmd.Process.Signal(s)
			}
		}
	}()
	l.Status = suite.ExitStatus(cmd.Wait())
	return saved(l)
}

// saved records the launch, if it has a directory, and returns its
// status.
func saved(l *suite.Launch) int {
	l.Ended = time.Now()
	if l.Dir != "" {
		if err := l.Save(); err != nil {
			fmt.Fprintf(os.Stderr, "mpivet: cannot record launch %04d: %v\n", l.Index, err)
		}
	}
	return l.Status
}
