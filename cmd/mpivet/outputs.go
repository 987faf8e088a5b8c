package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"
	"golang.org/x/sys/unix"

	"mpivet/check"
	"mpivet/checks/all"
	"mpivet/driver"
	"mpivet/report"
)

// output says where the report goes besides the terminal: the report
// files (the suppressions, which change the verification's findings, are
// an option of the driver).
type output struct {
	json, html, sarif string
	noColor           bool
}

func (out *output) flags(fs *pflag.FlagSet) {
	fs.StringVar(&out.json, "json", "", "also write the report as JSON to `FILE`")
	fs.StringVar(&out.html, "html", "", "also write the report as a self-contained HTML page to `FILE` (graphs, space-time diagram)")
	fs.StringVar(&out.sarif, "sarif", "", "also write the report as SARIF 2.1.0 to `FILE` (for code scanning)")
	fs.BoolVar(&out.noColor, "no-color", false, "no colours in the terminal report")
}

// trails says whether the interleavings with findings need their trails
// (the space-time diagram, SARIF's thread flows).
func (out output) trails() bool { return out.html != "" || out.sarif != "" }

// check checks, before anything is run, that each report file asked for
// can be written: a path that is not a directory, in a directory that
// exists and can be written in.
func (out output) check() error {
	return filesWritable([]flagFile{{"json", out.json}, {"html", out.html}, {"sarif", out.sarif}})
}

// flagFile is a file a flag names ("" when not given).
type flagFile struct{ flag, path string }

// filesWritable checks that each file given can be written (writable),
// and says which flag names one that cannot.
func filesWritable(fs []flagFile) error {
	for _, f := range fs {
		if f.path == "" {
			continue
		}
		if err := writable(f.path); err != nil {
			return fmt.Errorf("--%s %s: %v", f.flag, f.path, err)
		}
	}
	return nil
}

// writable says why a file cannot be written at path, or returns nil.
func writable(path string) error {
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return errors.New("is a directory")
		}
		if err := unix.Access(path, unix.W_OK); err != nil {
			return fmt.Errorf("cannot write it: %v", err)
		}
		return nil
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return fmt.Errorf("no directory %s", dir)
	case !st.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	}
	if err := unix.Access(dir, unix.W_OK|unix.X_OK); err != nil {
		return fmt.Errorf("cannot create it in %s: %v", dir, err)
	}
	return nil
}

// write writes the report files asked for.
func (out output) write(rep *report.Report) error {
	if out.json != "" {
		if err := report.WriteJSON(out.json, rep); err != nil {
			return fmt.Errorf("cannot write the JSON report: %v", err)
		}
	}
	if out.html != "" {
		if err := report.WriteHTML(out.html, rep); err != nil {
			return fmt.Errorf("cannot write the HTML report: %v", err)
		}
	}
	if out.sarif != "" {
		f, err := os.Create(out.sarif)
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

// exportWitness is mpivet replay --export DIR: the interleaving is written
// as a witness, not run. It returns the exit status.
func exportWitness(r driver.ReplayOptions, dir string) (int, error) {
	n, err := driver.Export(r, dir)
	if err != nil {
		return exitFailure, err
	}
	fmt.Fprintf(os.Stderr, "mpivet: interleaving %d of %s written to %s (%d forced %s); replay it with: mpivet replay %s\n",
		r.Interleaving, r.Dir, dir, n, check.Plural(n, "match", "matches"), dir)
	return exitOK, nil
}

// exitHelp documents mpivet's exit statuses, for --help.
const exitHelp = `Exit status:
  0    no error found, and everything set out was covered (warnings may be printed)
  1    errors found (suppressed findings do not count)
  2    mpivet could not do its job (bad input, no MPI, launcher failure, records it could not
       write on a full disk: the message says which)
  3    incomplete: no error found in what was covered, but the verification stopped early
       (interrupted, --budget, --max-interleavings, diverged replays, a rank killed from outside)
  130  quit at once on a second interrupt, without a report`
