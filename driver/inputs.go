package driver

import (
	"mpivet/rundir"

	"fmt"
	"os"
	"os/exec"
	"strings"
)

// checkInputs checks, before anything is created or launched, what a run
// reads and where it writes: the program, the suppression file, and the
// run directory (--dir) if it exists, the launcher (--launcher).
func (o *Options) checkInputs() error {
	prog := o.Program
	if !strings.Contains(prog, "/") {
		p, err := exec.LookPath(prog)
		if err != nil {
			return fmt.Errorf("%s: no such file, nor a program of that name in PATH", prog)
		}
		prog = p
	}
	switch st, err := os.Stat(prog); {
	case err != nil:
		return fmt.Errorf("%s: no such file", o.Program)
	case st.IsDir():
		return fmt.Errorf("%s: not an executable file (a directory)", o.Program)
	}
	if _, err := loadSuppressions(o.Suppressions); err != nil {
		return err
	}
	if st, err := os.Stat(o.Dir); o.Dir != "" && err == nil && !st.IsDir() {
		return fmt.Errorf("--dir %s: not a directory", o.Dir)
	}
	if f := strings.Fields(o.Launcher); len(f) > 0 {
		if _, err := exec.LookPath(f[0]); err != nil {
			return fmt.Errorf("--launcher %q: %v", o.Launcher, err)
		}
	}
	return nil
}

// removeUnrun removes the run directory dir that Verify created when
// the verification failed before it launched anything (the program is not
// an MPI program, no MPI, the layer would not build): it holds only the
// command record and the run's lock then, and would be left behind empty
// of records. A
// directory with more (a launcher's output, records) is kept: it says
// what went wrong.
func removeUnrun(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.Name() != commandFile && e.Name() != rundir.LockFile {
			return
		}
	}
	os.RemoveAll(dir)
}
