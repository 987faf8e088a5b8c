package suite

import (
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"mpivet/check"
	"mpivet/report"
)

// The JUnit XML CI tools read (Jenkins' junit plugin, GitLab's test
// reports): one testsuite, one testcase per launch.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name      string          `xml:"name,attr"`
		Tests     int             `xml:"tests,attr"`
		Failures  int             `xml:"failures,attr"`
		Errors    int             `xml:"errors,attr"`
		Skipped   int             `xml:"skipped,attr"`
		Time      string          `xml:"time,attr"`
		Timestamp string          `xml:"timestamp,attr,omitempty"`
		Hostname  string          `xml:"hostname,attr,omitempty"`
		Props     []junitProperty `xml:"properties>property"`
		Cases     []junitCase     `xml:"testcase"`
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitCase struct {
		Name      string         `xml:"name,attr"`
		Classname string         `xml:"classname,attr"`
		Time      string         `xml:"time,attr"`
		Skipped   *junitMessage  `xml:"skipped"`
		Error     *junitMessage  `xml:"error"`
		Failures  []junitMessage `xml:"failure"`
		SystemOut string         `xml:"system-out,omitempty"`
	}
	junitMessage struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr,omitempty"`
		Text    string `xml:",chardata"`
	}
)

// PrintJUnit writes the suite as JUnit XML: one testsuite, one testcase per
// launch (named by its program and arguments, its classname from its
// working directory), with a failure per error finding (message: the kind
// and the first location; text: the finding's text report), skipped for a
// launch not verified, error when mpivet failed on it. Warnings and an
// incomplete verdict are told in the testcase's system-out.
func (s *Suite) PrintJUnit(w io.Writer) error {
	suite := junitSuite{Name: "mpivet: " + s.Dir, Tests: len(s.Results),
		Props: []junitProperty{{"verdict", s.Verdict}, {"suite_dir", s.Dir}}}
	classes := classnames(s.Results)
	names := map[string]int{}
	var total time.Duration
	var first time.Time
	for i := range s.Results {
		r := &s.Results[i]
		c := r.junitCase(classes[i])
		if names[c.Name]++; names[c.Name] > 1 { // two launches of one command line: two testcases
			c.Name += fmt.Sprintf(" (launch %d)", r.Index)
		}
		switch {
		case c.Skipped != nil:
			suite.Skipped++
		case c.Error != nil:
			suite.Errors++
		case len(c.Failures) > 0:
			suite.Failures++
		}
		total += r.duration()
		if !r.Started.IsZero() && (first.IsZero() || r.Started.Before(first)) {
			first = r.Started
		}
		suite.Cases = append(suite.Cases, c)
	}
	suite.Time = seconds(total)
	if !first.IsZero() {
		suite.Timestamp = first.UTC().Format("2006-01-02T15:04:05")
	}
	suite.Hostname, _ = os.Hostname()
	doc := junitSuites{Name: "mpivet", Tests: suite.Tests, Failures: suite.Failures, Errors: suite.Errors,
		Skipped: suite.Skipped, Time: suite.Time, Suites: []junitSuite{suite}}
	data, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s%s\n", xml.Header, data)
	return err
}

func (r *Result) junitCase(class string) junitCase {
	c := junitCase{Name: r.CommandLine(), Classname: class, Time: seconds(r.duration())}
	switch r.Outcome {
	case NotVerified:
		c.Skipped = &junitMessage{Message: "not verified: " + r.Reason}
		return c
	case Failed:
		msg := "mpivet could not verify the launch (exit status 2)"
		if r.MpivetStatus != 2 {
			msg = fmt.Sprintf("mpivet left no report (exit status %d)", r.MpivetStatus)
		}
		c.Error = &junitMessage{Message: msg, Type: "mpivet-failure", Text: r.Problem + "\nlaunch: " + r.Dir}
		return c
	}
	var out strings.Builder
	for _, f := range r.Report.Findings {
		if f.Severity != check.Error {
			fmt.Fprintf(&out, "%s\n", r.Report.FindingText(f))
			continue
		}
		msg := f.Kind
		if len(f.Locations) > 0 {
			msg += ": " + f.Locations[0].String()
		}
		c.Failures = append(c.Failures, junitMessage{Message: msg, Type: f.Kind, Text: r.Report.FindingText(f)})
	}
	if r.Report.Verdict == "incomplete" {
		fmt.Fprintf(&out, "incomplete: %s\n", r.Report.Stopped)
	}
	fmt.Fprintf(&out, "verdict: %s (records: %s; launch: %s)\n", r.Report.Verdict, r.Report.RunDir, r.Dir)
	c.SystemOut = report.Printable(out.String())
	return c
}

// duration is how long the launch took: from its record, else its
// report's.
func (r *Result) duration() time.Duration {
	if d := r.Ended.Sub(r.Started); !r.Started.IsZero() && d > 0 {
		return d
	}
	if r.Report != nil {
		return time.Duration(r.Report.Seconds * float64(time.Second))
	}
	return 0
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// classnames gives each launch a JUnit classname from its working
// directory: the path from the parent of the directory all launches ran
// under, dotted (/p/build/tests/a and /p/build/tests/b give tests.a and
// tests.b; dots in a name become underscores, for the tools that take the
// last dot as the class's). A launch with no working directory has
// "mpivet".
func classnames(rs []Result) []string {
	common := ""
	for _, r := range rs {
		if r.WorkDir == "" {
			continue
		}
		d := filepath.Clean(r.WorkDir)
		if common == "" {
			common = d
		}
		for common != "/" && common != "." && d != common && !strings.HasPrefix(d, common+string(filepath.Separator)) {
			common = filepath.Dir(common)
		}
	}
	root := filepath.Dir(common)
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = "mpivet"
		rel, err := filepath.Rel(root, filepath.Clean(r.WorkDir))
		if r.WorkDir == "" || err != nil || rel == "." {
			continue
		}
		parts := strings.Split(filepath.ToSlash(rel), "/")
		for j, p := range parts {
			parts[j] = strings.ReplaceAll(p, ".", "_")
		}
		out[i] = strings.Join(parts, ".")
	}
	return out
}
