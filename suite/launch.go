// Package suite verifies whole test suites: every MPI launch that a command
// (make check, ctest, pytest, a shell script) makes is run under mpivet, each
// in a run directory of its own, and the launches are reported together.
//
// A suite directory holds one directory per launch, launches/NNNN, each with
// the launch's record (launch.json, written by the launcher that ran it) and
// the JSON report of its verification (report.json). The launcher writes
// them; the suite's reports read them.
package suite

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// LaunchFile and ReportFile are the names of a launch's record and of its
// JSON report in its directory.
const (
	LaunchFile = "launch.json"
	ReportFile = "report.json"
)

// Launch is one MPI launch of a suite, as the launcher ran it.
type Launch struct {
	// Index numbers the launches of a suite in the order they started
	// (from 1); Dir is the launch's directory (launches/NNNN).
	Index int    `json:"index"`
	Dir   string `json:"-"`
	// Command is the launch as the suite wrote it (the launcher and its
	// arguments); WorkDir the directory it ran in.
	Command []string `json:"command"`
	WorkDir string   `json:"work_dir"`
	// Program and Args are the MPI program and its arguments; Ranks the
	// number of processes. Verified is false for a launch passed through
	// to the real launcher unchecked (not an MPI program, or options mpivet
	// cannot honour); Reason says why.
	Program  string   `json:"program"`
	Args     []string `json:"args"`
	Ranks    int      `json:"ranks"`
	Verified bool     `json:"verified"`
	Reason   string   `json:"reason,omitempty"`
	// Status is the exit status the launch gave the suite (the program's,
	// as natively); Verdict mpivet's ("ok", "error", "incomplete"; empty
	// when not verified or when mpivet failed), MpivetStatus the exit
	// status of the verification (0 ok, 1 errors, 2 mpivet's failure, 3
	// incomplete).
	Status       int       `json:"status"`
	Verdict      string    `json:"verdict,omitempty"`
	MpivetStatus int       `json:"mpivet_status"`
	Started      time.Time `json:"started"`
	Ended        time.Time `json:"ended"`

	// Error is mpivet's message when it could not verify the launch
	// (status 2), for the reports.
	Error string `json:"error,omitempty"`
}

// Report is the path of the launch's JSON report (which may not exist:
// a launch passed through, or one whose verification failed).
func (l *Launch) Report() string { return filepath.Join(l.Dir, ReportFile) }

// Save writes the launch's record in its directory.
func (l *Launch) Save() error {
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(l.Dir, LaunchFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(l.Dir, LaunchFile))
}

// Load reads the records of the launches in the suite directory dir, in
// the order of their indices. Launch directories without a record (a
// launch still starting, or killed before it wrote one) are left out.
func Load(dir string) ([]Launch, error) {
	ents, err := filepath.Glob(filepath.Join(dir, "launches", "*", LaunchFile))
	if err != nil {
		return nil, err
	}
	var ls []Launch
	for _, p := range ents {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var l Launch
		if err := json.Unmarshal(b, &l); err != nil {
			return nil, fmt.Errorf("%s: %v", p, err)
		}
		l.Dir = filepath.Dir(p)
		ls = append(ls, l)
	}
	sortLaunches(ls)
	return ls, nil
}

func sortLaunches(ls []Launch) {
	sort.Slice(ls, func(i, j int) bool { return ls[i].Index < ls[j].Index })
}
