package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"mpivet/checks/all"
	"mpivet/report"
	"mpivet/suite"
)

// suiteReportCmd is mpivet suite-report: the reports of a whole suite,
// from the launch records and reports in its directory.
func suiteReportCmd(code *int) *cobra.Command {
	var out suite.Outputs
	cmd := &cobra.Command{
		Use:   "suite-report [flags] SUITE_DIR",
		Short: "report on every MPI launch of a verified test suite together",
		Long: `Read the launches of a test suite verified under mpivet (SUITE_DIR/launches/NNNN,
each with its launch.json and report.json) and report on them together: a
summary on standard output (each launch's program and arguments, ranks,
verdict, findings by kind and run directory; the launches not verified with
their reason; the totals), and, as asked, the suite as JSON, one SARIF log
with each finding once however many launches found it, an HTML index
linking each launch's own HTML report (written beside its report.json
where missing), and JUnit XML (one testcase per launch).

Exit status: 0 no error found, 1 errors found in a launch, 2 mpivet could
not verify a launch (and found no error in the others) or could not read
SUITE_DIR or write a report, 3 no error found but a verification stopped
early.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			out.Text = cmd.OutOrStdout()
			c, err := suiteReport(args[0], out)
			*code = c
			return err
		},
	}
	suiteOutputFlags(cmd.Flags(), &out)
	return cmd
}

// suiteOutputFlags defines the flags of the suite's reports.
func suiteOutputFlags(fs *pflag.FlagSet, out *suite.Outputs) {
	fs.StringVar(&out.JSON, "json", "", "also write the suite's launches and their reports as JSON to `FILE`")
	fs.StringVar(&out.SARIF, "sarif", "", "also write one SARIF 2.1.0 log of all the launches' findings to `FILE`")
	fs.StringVar(&out.HTML, "html", "", "also write an HTML index of the launches, linking their HTML reports, to `FILE`")
	fs.StringVar(&out.JUnit, "junit", "", "also write the suite as JUnit XML (a testcase per launch) to `FILE`")
}

// suiteOutputsWritable checks that the suite's reports can be written
// where out says.
func suiteOutputsWritable(out suite.Outputs) error {
	return filesWritable([]flagFile{{"json", out.JSON}, {"sarif", out.SARIF}, {"html", out.HTML}, {"junit", out.JUnit}})
}

// suiteReport writes the reports of the suite in dir (the summary to
// out.Text) and returns the exit status.
func suiteReport(dir string, out suite.Outputs) (int, error) {
	if err := suiteOutputsWritable(out); err != nil {
		return exitFailure, err
	}
	st, err := os.Stat(dir)
	if err != nil {
		return exitFailure, fmt.Errorf("no suite directory %s: %v", dir, err)
	}
	if !st.IsDir() {
		return exitFailure, fmt.Errorf("%s is not a suite directory (a directory with launches/NNNN in it)", dir)
	}
	launches, err := suite.Load(dir)
	if err != nil {
		return exitFailure, fmt.Errorf("cannot read the suite's launches: %v", err)
	}
	out.Rules = report.RulesOf(all.Checks)
	s := suite.New(dir, launches)
	if err := s.Write(out); err != nil {
		return exitFailure, err
	}
	return s.Totals.ExitCode(), nil
}
