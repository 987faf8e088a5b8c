package suite

import (
	"fmt"
	"strconv"
	"strings"
)

// Launchers are the names of the MPI launchers a suite's launches go
// through: a shim of each stands in for the real one (srun only inside a
// Slurm allocation).
var Launchers = []string{"mpirun", "mpiexec", "mpiexec.openmpi", "mpirun.openmpi", "mpiexec.mpich",
	"mpirun.mpich", "mpiexec.hydra", "orterun", "srun"}

// ImpliedMPI is the MPI a launcher's name implies ("openmpi", "mpich"),
// or "" (mpirun, mpiexec, srun: the program's own).
func ImpliedMPI(launcher string) string {
	switch launcher {
	case "mpiexec.openmpi", "mpirun.openmpi", "orterun":
		return "openmpi"
	case "mpiexec.mpich", "mpirun.mpich", "mpiexec.hydra":
		return "mpich"
	}
	return ""
}

// Spec is one launch as the launcher's command line writes it.
type Spec struct {
	NP      int      // processes (0: not given)
	Program string   // the program, as written
	Args    []string // its arguments
	// Env is what the launch sets in the program's environment (-x
	// VAR=VAL, -genv VAR VAL, -env VAR VAL, and --mca k v as OMPI_MCA_k=v);
	// everything else is inherited, as the launchers on one host do.
	Env []string
	// WorkDir is the program's working directory (-wdir; "": the launch's).
	WorkDir string
	// Hosts are the options that say where the ranks run (--host,
	// --hostfile), passed on to the real launcher.
	Hosts []string
	// Unsupported says why mpivet cannot run this launch as written (""
	// when it can): MPMD (a : b), an option it does not know.
	Unsupported string
}

// launcher options, by name without their leading dashes: how many values
// each takes, and what it does. Options that only place or bind the
// processes (which a verification on one host may ignore) are "ignored".
type optKind int

const (
	optIgnored      optKind = iota // no value: has no effect on a verification
	optIgnoredValue                // one value, ignored
	optNP
	optExport  // -x VAR[=VAL]
	optEnv     // -genv VAR VAL
	optEnvList // -genvlist A,B: inherited anyway
	optWorkDir
	optHost // one value, passed on
	optMCA  // --mca k v
)

var mpirunOptions = map[string]optKind{
	"n": optNP, "np": optNP, "c": optNP,
	"oversubscribe": optIgnored, "allow-run-as-root": optIgnored, "envall": optIgnored, "genvall": optIgnored,
	"report-bindings": optIgnored, "q": optIgnored, "quiet": optIgnored, "use-hwthread-cpus": optIgnored,
	"bind-to": optIgnoredValue, "map-by": optIgnoredValue, "rank-by": optIgnoredValue, "binding": optIgnoredValue,
	"ppn": optIgnoredValue, "npernode": optIgnoredValue, "launcher": optIgnoredValue, "bootstrap": optIgnoredValue,
	"x": optExport, "genv": optEnv, "env": optEnv, "genvlist": optEnvList, "envlist": optEnvList,
	"wdir": optWorkDir, "wd": optWorkDir,
	"host": optHost, "H": optHost, "hosts": optHost, "hostfile": optHost, "machinefile": optHost, "f": optHost,
	"default-hostfile": optHost,
	"mca":              optMCA, "gmca": optMCA,
}

var srunOptions = map[string]optKind{
	"n": optNP, "ntasks": optNP,
	"N": optIgnoredValue, "nodes": optIgnoredValue, "mpi": optIgnoredValue, "c": optIgnoredValue,
	"cpus-per-task": optIgnoredValue, "t": optIgnoredValue, "time": optIgnoredValue,
	"exact": optIgnored, "overlap": optIgnored, "export": optIgnoredValue,
	"chdir": optWorkDir, "D": optWorkDir,
}

// Parse reads the command line of a launch made through launcher (one of
// Launchers): args are what follows the launcher's name.
func Parse(launcher string, args []string) *Spec {
	opts := mpirunOptions
	if launcher == "srun" {
		opts = srunOptions
	}
	s := &Spec{}
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		kind, ok := opts[name]
		if !ok {
			s.Unsupported = fmt.Sprintf("%s: an option mpivet does not know", a)
			return s
		}
		n := values(kind)
		if hasVal {
			n--
		}
		if n < 0 || i+n >= len(args) {
			s.Unsupported = fmt.Sprintf("%s: a value missing, or one too many", a)
			return s
		}
		vs := args[i+1 : i+1+n]
		if hasVal {
			vs = append([]string{val}, vs...)
		}
		i += n
		if msg := s.set(kind, name, vs); msg != "" {
			s.Unsupported = msg
			return s
		}
	}
	if i >= len(args) {
		s.Unsupported = "no program to run"
		return s
	}
	s.Program, s.Args = args[i], args[i+1:]
	for _, a := range s.Args {
		if a == ":" {
			s.Unsupported = "an MPMD launch (a : b), which mpivet does not run"
		}
	}
	if s.NP == 0 && s.Unsupported == "" {
		s.Unsupported = "the number of processes is not given (-n)"
	}
	return s
}

// values is how many values an option of kind takes.
func values(k optKind) int {
	switch k {
	case optIgnored:
		return 0
	case optEnv, optMCA:
		return 2
	}
	return 1
}

// set applies one option (its name without dashes), with its values; it
// returns why the launch cannot be run as written, or "".
func (s *Spec) set(k optKind, name string, vs []string) string {
	opt := "-" + name
	switch k {
	case optNP:
		n, err := strconv.Atoi(vs[0])
		if err != nil || n < 1 {
			return fmt.Sprintf("%s %s: not a number of processes", opt, vs[0])
		}
		s.NP = n
	case optExport:
		if strings.Contains(vs[0], "=") {
			s.Env = append(s.Env, vs[0])
		} // -x VAR: the program inherits it
	case optEnv:
		s.Env = append(s.Env, vs[0]+"="+vs[1])
	case optMCA:
		s.Env = append(s.Env, "OMPI_MCA_"+vs[0]+"="+vs[1])
	case optWorkDir:
		s.WorkDir = vs[0]
	case optHost:
		if strings.ContainsAny(vs[0], " \t\n") {
			return fmt.Sprintf("%s %q: a value with spaces", opt, vs[0])
		}
		s.Hosts = append(s.Hosts, opt, vs[0])
	}
	return ""
}

// Query reports whether a launcher's arguments ask it something (--version,
// --help, -info) rather than launch: they are all options, without a
// value or a program.
func Query(args []string) bool {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return false
		}
	}
	return true
}
