package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"mpivet/check"
	"mpivet/checks/all"
	"mpivet/report"
)

// outputs are the reports written to files besides the terminal's, and the
// suppressions applied to them all.
type outputs struct {
	json, html, sarif string
	suppressions      string // --suppressions FILE ("": report.DefaultSuppressions if it exists)
}

// trails says whether the interleavings with findings need their trails
// (the space-time diagram, SARIF's thread flows).
func (o outputs) trails() bool { return o.html != "" || o.sarif != "" }

// loadSuppressions reads the suppression file: the one named, which must
// exist, or the default one in the working directory, if there is one.
func (o outputs) loadSuppressions() ([]*report.Suppression, error) {
	path := o.suppressions
	if path == "" {
		path = report.DefaultSuppressions
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
	}
	ss, err := report.ReadSuppressions(path)
	if err != nil {
		return nil, fmt.Errorf("suppressions: %v", err)
	}
	return ss, nil
}

// write writes the report files asked for.
func (o outputs) write(rep *report.Report) error {
	if o.json != "" {
		if err := report.WriteJSON(o.json, rep); err != nil {
			return fmt.Errorf("cannot write the JSON report: %v", err)
		}
	}
	if o.html != "" {
		if err := report.WriteHTML(o.html, rep); err != nil {
			return fmt.Errorf("cannot write the HTML report: %v", err)
		}
	}
	if o.sarif != "" {
		f, err := os.Create(o.sarif)
		if err == nil {
			err = report.NewSARIF(f, report.RulesOf(all.Checks)).Print(rep)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			return fmt.Errorf("cannot write the SARIF report: %v", err)
		}
	}
	return nil
}

// suppressed reports whether a suppression silences finding f (of an
// interleaving, before Findings gives it its fingerprint).
func (x *exploration) suppressed(f check.Finding) bool {
	f.Fingerprint = report.Fingerprint(f)
	for _, s := range x.supp {
		if s.Matches(f) {
			return true
		}
	}
	return false
}

// exitHelp documents mpivet's exit statuses, for --help.
const exitHelp = `Exit status:
  0    no error found, and everything set out was covered (warnings may be printed)
  1    errors found (suppressed findings do not count)
  2    mpivet could not do its job (bad input, no MPI, launcher failure: the message says which)
  3    incomplete: no error found in what was covered, but the verification stopped early
       (interrupted, --budget, --max-interleavings, diverged replays)
  130  quit at once on a second interrupt, without a report`
