// Command mpivet runs an MPI program under verification and reports what can
// go wrong in it. It is the command line of package driver: flags (declared
// by driver.Options) -> driver.Verify or driver.Replay -> printers -> exit
// status, with the terminal's plumbing (interrupts, progress).
//
//	mpivet run -n 4 ./app arg1 arg2
//	mpivet run -n 4 --json report.json ./app
//	mpivet checks            # list the checks
//	mpivet explain KIND      # what a finding kind means
//
// Exit status: 0 no error found, 1 errors found, 2 mpivet could not do its
// job, 3 no error found but the verification stopped early (interrupted,
// --budget, --max-interleavings), 130 quit at once on a second interrupt.
//
// The files: main.go the subcommands (run, replay, checks, explain) and
// their flags; exec.go mpivet exec and mpivet mpiexec, a test suite's
// launches verified; shim.go one launch made through a launcher's shim; dump.go mpivet dump, the records of a run directory as
// text; outputs.go the report files asked for (--json, --html, --sarif, a
// witness with --export); progress.go the progress line; signals.go
// interrupts (the first stops the run and reports, a second quits);
// suite.go mpivet suite-report, the reports of a whole test suite;
// cache.go mpivet cache, the layer cache and its clean; profile.go
// mpivet's own CPU and heap profiles, for its maintainers.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"mpivet/check"
	"mpivet/checks/all"
	"mpivet/driver"
	"mpivet/report"
	"mpivet/suite"
)

// Exit statuses.
const (
	exitOK       = 0
	exitFindings = 1
	exitFailure  = 2
)

func main() {
	// A link named after an MPI launcher (the shims of mpivet exec, or a
	// link named mpiexec) is that launcher, verifying its launch.
	if l := suite.LauncherName(os.Args[0]); l != "" {
		os.Exit(shim(l, os.Args[1:], shimFlags()))
	}
	code := exitOK
	profiled := profile()
	err := rootCmd(&code).Execute()
	profiled()
	if err != nil {
		msg := err.Error()
		if !strings.HasPrefix(msg, "mpivet ") { // "mpivet could not write its records: ..."
			msg = "mpivet: " + msg
		}
		fmt.Fprintln(os.Stderr, report.Printable(msg)) // (it may quote the launcher's output)
		os.Exit(exitFailure)
	}
	os.Exit(code)
}

// rootCmd is the command line; a command sets *code to its exit status.
// docs/cli/ is generated from it.
func rootCmd(code *int) *cobra.Command {
	root := &cobra.Command{
		Use:               "mpivet",
		Short:             "dynamic verifier for MPI programs",
		Long:              "mpivet runs an MPI program, explores its nondeterminism and reports its MPI usage errors.\n\n" + exitHelp,
		SilenceUsage:      true,
		SilenceErrors:     true,
		DisableAutoGenTag: true,
	}
	root.AddCommand(runCmd(code), replayCmd(code), execCmd(code), mpiexecCmd(code), checksCmd(), explainCmd(), dumpCmd(), suiteReportCmd(code), cacheCmd())
	return root
}

func runCmd(code *int) *cobra.Command {
	o := driver.Defaults()
	var out output
	cmd := &cobra.Command{
		Use:   "run [flags] PROGRAM [ARGS...]",
		Short: "run an MPI program under mpivet and report what goes wrong",
		Long: `Run an MPI program (C, C++ or Fortran, linked against a shared Open MPI or
MPICH) with its own launcher, record every rank's MPI calls, and report the
errors found: program failures, timeouts with what each rank was doing,
resource leaks and request life-cycle errors.

The records of the run stay in the run directory (--dir). For a run across
several hosts, that directory must be on a file system all hosts share.

` + exitHelp,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Program, o.Args = args[0], args[1:]
			c, err := verify(cmd.Context(), out, func(ctx context.Context, plumb driver.IO) (*report.Report, error) {
				o.IO = plumb
				return driver.Verify(ctx, o)
			})
			*code = c
			return err
		},
	}
	cmd.Flags().SetInterspersed(false) // flags after PROGRAM belong to it
	for _, name := range o.Flags(cmd.Flags(), false) {
		cmd.MarkFlagRequired(name)
	}
	out.flags(cmd.Flags())
	return cmd
}

func replayCmd(code *int) *cobra.Command {
	r := driver.ReplayOptions{GDB: -1}
	var out output
	var export string
	cmd := &cobra.Command{
		Use:   "replay RUN_DIR --interleaving N",
		Short: "run one interleaving of an earlier run again, exactly",
		Long: `Run the program of an earlier mpivet run again, forcing every wildcard
receive and probe to match as it did in interleaving N of that run (the report
names the interleaving of each finding), and check it.

With --gdb RANK, that rank stops after MPI_Init until a debugger attaches
(mpivet prints the gdb command); the buffer checker is off and there is no
time limit, so the program can be stepped through.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r.Dir = args[0]
			if r.Interleaving < 1 {
				*code = exitFailure
				return fmt.Errorf("--interleaving %d: interleavings are numbered from 1", r.Interleaving)
			}
			if export != "" {
				c, err := exportWitness(r, export)
				*code = c
				return err
			}
			c, err := verify(cmd.Context(), out, func(ctx context.Context, plumb driver.IO) (*report.Report, error) {
				r.IO = plumb
				return driver.Replay(ctx, r)
			})
			*code = c
			return err
		},
	}
	cmd.Flags().IntVar(&r.Interleaving, "interleaving", 1, "the interleaving to replay")
	o := driver.Options{GDB: -1}
	o.Flags(cmd.Flags(), true)
	cmd.PreRun = func(*cobra.Command, []string) { r.GDB, r.Suppressions = o.GDB, o.Suppressions }
	out.flags(cmd.Flags())
	cmd.Flags().StringVar(&export, "export", "", "do not run: write the interleaving as a witness in `DIR`, to replay elsewhere with the same binary (mpivet replay DIR)")
	cmd.Flags().StringVar(&r.Program, "program", "", "replay a witness with the program at `PATH` (it must be the same binary)")
	return cmd
}

// verify runs a verification (do), once the report files asked for are
// known to be writable, with the terminal's plumbing: the
// program's input when it is redirected, progress on standard error,
// interrupts (a first one stops the ranks and reports, a second quits at
// once), and prints its report. It returns the exit status.
func verify(ctx context.Context, out output, do func(context.Context, driver.IO) (*report.Report, error)) (int, error) {
	if err := out.check(); err != nil {
		return exitFailure, err
	}
	plumb := driver.IO{
		Notify:   func(msg string) { fmt.Fprintln(os.Stderr, "mpivet:", report.Printable(msg)) },
		Progress: newProgress(os.Stderr),
		Trails:   out.trails(),
	}
	// Input redirected to mpivet goes to the program, as with mpirun; a
	// terminal is not handed over, so a run never waits on the keyboard.
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		plumb.Stdin = os.Stdin
	}
	sig := catchInterrupts(ctx)
	defer sig.stop()
	rep, err := do(sig.ctx, plumb)
	if err != nil {
		return exitFailure, err
	}
	color := !out.noColor && os.Getenv("NO_COLOR") == "" && term.IsTerminal(int(os.Stdout.Fd()))
	sig.holdIfQuitting()
	_ = report.NewText(os.Stdout, color).Print(rep) // a closed terminal does not change the verdict
	if err := out.write(rep); err != nil {
		return exitFailure, err
	}
	return rep.ExitCode(), nil
}

func checksCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "checks",
		Short: "list the checks mpivet runs and the kinds of finding each reports",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, args []string) {
			listChecks(os.Stdout, all.Checks)
		},
	}
}

// listChecks prints one line per check, and the kinds it reports (what
// mpivet explain takes) when they are not just its name.
func listChecks(w io.Writer, checks []*check.Check) {
	for _, c := range checks {
		fmt.Fprintf(w, "%-20s %s\n", c.Name, title(c.Doc))
		if ks := c.AllKinds(); len(ks) > 1 || ks[0] != c.Name {
			fmt.Fprintf(w, "%-20s kinds: %s\n", "", strings.Join(ks, ", "))
		}
	}
}

func title(doc string) string { return strings.SplitN(doc, "\n", 2)[0] }

func explainCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "explain KIND",
		Short: "explain a kind of finding (see: mpivet checks)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return explain(os.Stdout, all.Checks, args[0])
		},
	}
}

// explain prints what a kind of finding means, from every check that
// reports it; a check's name stands for the kind named after it.
func explain(w io.Writer, checks []*check.Check, kind string) error {
	ex := check.Explain(checks, kind)
	if len(ex) == 0 {
		for _, c := range checks {
			if c.Name == kind { // a check whose kinds are not named after it
				fmt.Fprintf(w, "%s (check): %s\n", c.Name, c.Doc)
				return nil
			}
		}
		var kinds []string
		seen := map[string]bool{}
		for _, c := range checks {
			for _, k := range c.AllKinds() {
				if !seen[k] {
					seen[k] = true
					kinds = append(kinds, k)
				}
			}
		}
		return fmt.Errorf("no kind of finding %q; the kinds are: %s", kind, strings.Join(kinds, ", "))
	}
	for i, e := range ex {
		if i > 0 {
			fmt.Fprintln(w)
		}
		from := ""
		if e.Check.Name != kind || len(ex) > 1 {
			from = " (check " + e.Check.Name + ")"
		}
		fmt.Fprintf(w, "%s%s: %s\n", kind, from, e.Text)
	}
	return nil
}
