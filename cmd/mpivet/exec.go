package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"mpivet/driver"
	"mpivet/suite"
)

func execCmd(code *int) *cobra.Command {
	o := driver.Defaults()
	var dir string
	var budget time.Duration
	var out suite.Outputs
	cmd := &cobra.Command{
		Use:   "exec [flags] -- COMMAND [ARGS...]",
		Short: "run a test suite, verifying every MPI launch it makes",
		Long: `Run COMMAND (make check, ctest, a script) with the MPI launchers (mpirun,
mpiexec and their .openmpi, .mpich and .hydra forms, orterun, srun inside a
Slurm allocation) replaced by mpivet's, so that every launch of an MPI
program it makes is verified with the flags given, each in its own directory
of the suite directory (--suite). Each launch prints and exits as natively;
a launch mpivet cannot verify (not an MPI program, an MPMD launch, an
option mpivet does not know) runs unchanged with the real launcher, and is
recorded as not verified with the reason.

Exit status: 1 when a launch had an error finding, else COMMAND's; 2 when
mpivet could not run the suite. At its end, the summary of every launch
(as mpivet suite-report prints it), and the suite's reports that --json,
--sarif, --html and --junit ask for.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if budget < 0 {
				*code = exitFailure
				return fmt.Errorf("--suite-budget %v: must be at least 0 (0: no limit)", budget)
			}
			if o.Suppressions != "" { // the launches run in their own directories
				abs, _ := filepath.Abs(o.Suppressions)
				cmd.Flags().Set("suppressions", abs)
			}
			if err := suiteOutputsWritable(out); err != nil {
				*code = exitFailure
				return err
			}
			flags := changedFlags(cmd.Flags(), "suite", "suite-budget", "json", "sarif", "html", "junit")
			if _, err := parseVerifyFlags(flags); err != nil {
				*code = exitFailure
				return err
			}
			c, err := runSuite(args, dir, budget, flags, out)
			*code = c
			return err
		},
	}
	cmd.Flags().SetInterspersed(false) // flags after COMMAND belong to it
	verifyFlags(cmd.Flags(), &o)
	cmd.Flags().StringVar(&dir, "suite", "", "the suite `directory`: one directory per launch, launches/NNNN (default: a new one under ./.mpivet)")
	cmd.Flags().DurationVar(&budget, "suite-budget", 0, "verify launches for this long in all; later launches run unchecked (0: no limit)")
	suiteOutputFlags(cmd.Flags(), &out)
	return cmd
}

func mpiexecCmd(code *int) *cobra.Command {
	o := driver.Defaults()
	cmd := &cobra.Command{
		Use:   "mpiexec [flags] -- [MPIEXEC ARGS...]",
		Short: "an mpiexec that verifies its launch (for CMake's MPIEXEC_EXECUTABLE)",
		Long: `Launch an MPI program as mpiexec would, verifying it with the flags given
(those before --): the program's output and exit status are as natively,
mpivet's report goes to the launch's directory in the suite directory:
$` + suite.EnvSuite + `, else ` + suite.DefaultDir + ` in the working directory. A
link to mpivet named mpiexec (or mpirun, mpiexec.mpich, ...; or
mpivet-mpiexec and so on) does the same, with the flags in $` + suite.EnvUserFlags + `.`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			flags, largs := args, []string(nil)
			for i, a := range args {
				if a == "--" {
					flags, largs = args[:i], args[i+1:]
					break
				}
			}
			if largs == nil { // no --: all are mpiexec's
				flags, largs = nil, args
			}
			if len(flags) == 1 && (flags[0] == "-h" || flags[0] == "--help") {
				return cmd.Help()
			}
			if _, err := parseVerifyFlags(flags); err != nil {
				*code = exitFailure
				return err
			}
			*code = shim("mpiexec", largs, flags)
			return nil
		},
	}
	verifyFlags(cmd.Flags(), &o)
	return cmd
}

// runSuite is mpivet exec: it runs the command args with the shims first
// on PATH, in the suite directory dir, and summarises the launches.
func runSuite(args []string, dir string, budget time.Duration, flags []string, out suite.Outputs) (int, error) {
	if suite.LauncherName(args[0]) == "" { // (a launcher's name is a shim's)
		if _, err := suite.LookPath(args[0], os.Getenv("PATH")); err != nil {
			return exitFailure, err
		}
	}
	dir, err := newSuiteDir(dir)
	if err != nil {
		return exitFailure, err
	}
	exe := executable()
	shims, err := suite.Shims(dir, exe, os.Getenv("SLURM_JOB_ID") != "")
	if err != nil {
		return exitFailure, fmt.Errorf("cannot make the launcher shims: %v", err)
	}
	defer os.RemoveAll(shims)
	realPath := suite.RealPath(os.Getenv("PATH"), exe)
	path := shims + string(os.PathListSeparator) + realPath
	js, _ := json.Marshal(flags)
	env := append(os.Environ(), "PATH="+path, suite.EnvSuite+"="+dir, suite.EnvFlags+"="+string(js), suite.EnvPath+"="+realPath)
	if budget > 0 {
		env = append(env, suite.EnvDeadline+"="+time.Now().Add(budget).Format(time.RFC3339Nano))
	}
	prog, err := suite.LookPath(args[0], path)
	if err != nil {
		return exitFailure, err
	}
	cmd := exec.Command(prog, args[1:]...)
	cmd.Args[0] = args[0]
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	// A terminal is not handed over (as with mpivet run): COMMAND runs in
	// a process group of its own, which mpivet's signals reach once.
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		cmd.Stdin = os.Stdin
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return exitFailure, err
	}
	stop := forwardSignals(cmd.Process.Pid, dir)
	status := suite.ExitStatus(cmd.Wait())
	stop()
	errs, err := summarize(dir, out)
	if err != nil {
		return exitFailure, err
	}
	if errs {
		return exitFindings, nil
	}
	return status, nil
}

// newSuiteDir makes the suite directory: dir (which must not hold
// launches already), or a new one under ./.mpivet. It returns its
// absolute path.
func newSuiteDir(dir string) (string, error) {
	if dir == "" {
		if err := os.MkdirAll(".mpivet", 0o755); err != nil {
			return "", err
		}
		d, err := os.MkdirTemp(".mpivet", "suite-")
		if err != nil {
			return "", err
		}
		dir = d
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("--suite %s: %v", dir, err)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "launches")); len(ents) > 0 {
		return "", fmt.Errorf("--suite %s: it holds the launches of an earlier suite; give a new directory, or remove this one", dir)
	}
	os.Remove(filepath.Join(dir, suite.StoppedFile))
	return filepath.Abs(dir)
}

// forwardSignals passes SIGINT, SIGTERM and SIGHUP on to the process
// group pgid (the command's), once each time they come, after marking the
// suite in dir stopped (a launch that starts then runs nothing). It
// returns the function that stops forwarding.
func forwardSignals(pgid int, dir string) (stop func()) {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-ch:
				os.WriteFile(filepath.Join(dir, suite.StoppedFile), []byte(signalName(s)+"\n"), 0o644)
				fmt.Fprintf(os.Stderr, "\nmpivet: %s: stopping the suite\n", signalName(s))
				syscall.Kill(-pgid, s.(syscall.Signal))
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(ch); close(done) }
}

// summarize writes the suite's reports (the summary on standard output,
// and the files out names), and reports whether a launch had an error
// finding.
func summarize(dir string, out suite.Outputs) (errors bool, err error) {
	out.Text = os.Stdout
	code, err := suiteReport(dir, out)
	return code == exitFindings, err
}
