package suite

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"mpivet/mpi"
)

// The environment through which mpivet exec tells the launches of its
// command (the shims) where and how to verify them.
const (
	// EnvSuite is the suite directory. Set by mpivet exec; outside it, a
	// launcher link writes to $MPIVET_SUITE if set, else to DefaultDir in
	// its working directory.
	EnvSuite = "MPIVET_SUITE"
	// EnvFlags are mpivet exec's verification flags (a JSON list).
	EnvFlags = "MPIVET_SUITE_FLAGS"
	// EnvPath is the PATH the command had, without the shims: where the
	// real launchers are.
	EnvPath = "MPIVET_SUITE_PATH"
	// EnvDeadline is when the suite's budget (--suite-budget) is spent
	// (RFC 3339); after it, launches pass through unchecked.
	EnvDeadline = "MPIVET_SUITE_DEADLINE"
	// EnvUserFlags are the verification flags of a launcher link used
	// outside mpivet exec (separated by spaces).
	EnvUserFlags = "MPIVET_FLAGS"
)

// DefaultDir is the suite directory of a launcher link used outside mpivet
// exec without $MPIVET_SUITE, relative to its working directory.
const DefaultDir = ".mpivet/suite"

// StoppedFile, in a suite directory, says the suite was interrupted: a
// launch that starts after it runs nothing.
const StoppedFile = "stopped"

// ShimDir is the directory of the shims in a suite directory.
const ShimDir = "shims"

// LauncherName returns the launcher an executable's name (argv[0]) stands
// for: one of Launchers, alone or after "mpivet-" (a link named
// mpivet-mpiexec.mpich), or "".
func LauncherName(argv0 string) string {
	base := strings.TrimPrefix(filepath.Base(argv0), "mpivet-")
	for _, l := range Launchers {
		if base == l {
			return l
		}
	}
	return ""
}

// Shims makes the directory of shims in the suite directory dir: a link
// to the mpivet executable exe named after each launcher (srun only with
// slurm, inside a Slurm allocation). It returns the directory.
func Shims(dir, exe string, slurm bool) (string, error) {
	d := filepath.Join(dir, ShimDir)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", err
	}
	for _, l := range Launchers {
		if l == "srun" && !slurm {
			continue
		}
		p := filepath.Join(d, l)
		os.Remove(p)
		if err := os.Symlink(exe, p); err != nil {
			return "", err
		}
	}
	return d, nil
}

// RealPath is the search path path without its directories where a
// launcher's name is a link to the executable exe (mpivet's shims, or a
// link named mpiexec): where the real launchers are found.
func RealPath(path, exe string) string {
	self, err := os.Stat(exe)
	if err != nil {
		return path
	}
	var keep []string
	for _, d := range filepath.SplitList(path) {
		if !holdsLink(d, self) {
			keep = append(keep, d)
		}
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

func holdsLink(dir string, self os.FileInfo) bool {
	for _, l := range Launchers {
		if st, err := os.Stat(filepath.Join(dir, l)); err == nil && os.SameFile(st, self) {
			return true
		}
	}
	return false
}

// LookPath finds the program name in the search path path.
func LookPath(name, path string) (string, error) {
	if strings.Contains(name, "/") {
		return exec.LookPath(name)
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found in PATH", name)
}

// NewLaunch makes the directory of the suite's next launch
// (launches/NNNN, numbered from 1): created with O_EXCL semantics
// (mkdir), so that launches started at once (ctest -j) each get their own.
func NewLaunch(dir string) (*Launch, error) {
	ls := filepath.Join(dir, "launches")
	if err := os.MkdirAll(ls, 0o755); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(ls)
	if err != nil {
		return nil, err
	}
	for i := len(ents) + 1; ; i++ {
		d := filepath.Join(ls, fmt.Sprintf("%04d", i))
		err := os.Mkdir(d, 0o755)
		if err == nil {
			return &Launch{Index: i, Dir: d, Started: time.Now()}, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
	}
}

// Deadline reads the end of the suite's budget from the environment
// (zero: none).
func Deadline() time.Time {
	t, _ := time.Parse(time.RFC3339Nano, os.Getenv(EnvDeadline))
	return t
}

// Spent reports whether the suite's budget is spent at now.
func Spent(now time.Time) bool {
	d := Deadline()
	return !d.IsZero() && now.After(d)
}

// Stopped reports whether the suite in dir was interrupted.
func Stopped(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, StoppedFile))
	return err == nil
}

// Classify decides whether a launch's program is an MPI program mpivet
// can verify: a program linked against MPI, or a Python interpreter
// whose script (or -c code, or -m module) uses mpi4py. It returns the
// program's MPI (choice, "openmpi" or "mpich", names the MPI when the
// program does not), or why the launch passes through unchecked.
func Classify(program string, args []string, choice string) (*mpi.Install, string) {
	path, err := exec.LookPath(program)
	if err != nil {
		return nil, fmt.Sprintf("%s: not found", program)
	}
	inst, err := mpi.Find(path, choice)
	if err != nil {
		return nil, err.Error()
	}
	if inst.Python == "" {
		return inst, ""
	}
	src := pythonSource(path, args)
	if !strings.Contains(src, "mpi4py") {
		return nil, "a Python program that does not use mpi4py"
	}
	return inst, ""
}

// pythonSource returns the code a Python launch runs, as far as its
// command line says: the script, the -c code, or the -m module's name
// (a script run by its #! line is the program itself).
func pythonSource(path string, args []string) string {
	if b, err := os.ReadFile(path); err == nil && strings.HasPrefix(string(b), "#!") {
		return string(b)
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-c" || a == "-m":
			if i+1 < len(args) {
				return args[i+1]
			}
			return ""
		case a == "-W" || a == "-X":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			b, _ := os.ReadFile(a)
			return string(b)
		}
	}
	return ""
}

// ExitStatus is the exit status of a finished command: its own, or 128
// plus the signal that ended it (as a shell says it).
func ExitStatus(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return 127
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ee.ExitCode()
}
