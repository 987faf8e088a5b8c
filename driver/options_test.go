package driver

import (
	"mpivet/rundir"

	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"mpivet/explore"
)

// Every field of Options is declared in the options table (or is the
// plumbing of IO): a field added without its line would be neither a
// flag, nor recorded, nor passed to the ranks.
func TestEveryOptionDeclared(t *testing.T) {
	var o Options
	declared := map[uintptr]bool{}
	base := reflect.ValueOf(&o).Pointer()
	for _, opt := range options {
		declared[reflect.ValueOf(opt.field(&o)).Pointer()-base] = true
		if opt.flag == "" && opt.record == "" && opt.conf == "" {
			t.Errorf("option %+v: neither a flag, recorded nor a setting of the ranks", opt)
		}
		if opt.usage != "" && opt.flag == "" || opt.usage == "" && opt.flag != "" {
			t.Errorf("option %s: a flag needs its usage, and only a flag has one", opt.flag)
		}
	}
	ty := reflect.TypeOf(o)
	for i := 0; i < ty.NumField(); i++ {
		f := ty.Field(i)
		if f.Name != "IO" && !declared[f.Offset] {
			t.Errorf("Options.%s is not in the options table", f.Name)
		}
	}
}

// The flags of mpivet run and replay come from the table, with its
// defaults; values given on the command line land in Options.
func TestFlags(t *testing.T) {
	o := Defaults()
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	required := o.Flags(fs, false)
	if !reflect.DeepEqual(required, []string{"np"}) {
		t.Errorf("required flags %v", required)
	}
	for name, def := range map[string]string{"timeout": "5m0s", "buffering": "mpi", "buffers": "on", "clocks": "lamport",
		"max-interleavings": "1000", "mixing-bound": "-1", "order-bound": "0", "first-error": "false", "buffering-check": "auto"} {
		if f := fs.Lookup(name); f == nil || f.DefValue != def {
			t.Errorf("--%s: %+v, want default %s", name, f, def)
		}
	}
	if fs.Lookup("gdb") != nil {
		t.Error("mpivet run has --gdb")
	}
	if err := fs.Parse([]string{"-n", "3", "--clocks=vector", "--buffering-check", "--budget", "2m", "--first-error", "prog", "a"}); err != nil {
		t.Fatal(err)
	}
	if o.NP != 3 || o.Clocks != "vector" || o.BufferingCheck != "auto" || o.Budget != 2*time.Minute || !o.FirstError || o.MixingBound != -1 {
		t.Errorf("parsed %+v", o)
	}
	if typ := fs.Lookup("mixing-bound").Value.Type(); typ != "int" {
		t.Errorf("--mixing-bound is a %s", typ)
	}
	r := Options{GDB: -1}
	rs := pflag.NewFlagSet("replay", pflag.ContinueOnError)
	r.Flags(rs, true)
	n := 0
	rs.VisitAll(func(*pflag.Flag) { n++ })
	if n != 2 || rs.Lookup("gdb") == nil || rs.Lookup("suppressions") == nil {
		t.Errorf("mpivet replay's flags from the table: %d, want --gdb and --suppressions only", n)
	}
}

func TestValidate(t *testing.T) {
	o := Options{NP: 2, Program: "p", BufferingCheck: "false"}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if o.BufferingCheck != "off" || o.Buffering != "mpi" || o.Clocks != "lamport" || o.Buffers != "on" || o.Slack != "minimal" {
		t.Errorf("validated %+v", o)
	}
	for _, c := range []struct {
		o   Options
		msg string
	}{
		{Options{NP: 0, Program: "p"}, "-n 0: the number of ranks must be at least 1"},
		{Options{NP: 1, Program: "p", Buffers: "x"}, "--buffers=x: must be on, precise or off"},
		{Options{NP: 1, Program: "p", BufferingCheck: "x"}, "--buffering-check=x: must be auto, run or off"},
		{Options{NP: 1, Program: "p", Clocks: "x"}, "--clocks=x: must be lamport, vector or off"},
		{Options{NP: 1, Program: "p", Buffering: "x"}, "--buffering=x: must be mpi, zero or infinite"},
		{Options{NP: 1, Program: "p", Slack: "x"}, "--slack=x: must be minimal or off"},
		{Options{NP: 1, Program: "p", BufferSends: "0:0,1"}, `--buffer-sends: "1": want RANK:N (the rank's N-th MPI_Send or MPI_Isend, from 0)`},
	} {
		if err := c.o.Validate(); err == nil || err.Error() != c.msg {
			t.Errorf("%+v: %v, want %q", c.o, err, c.msg)
		}
	}
}

// The command record keeps the recorded options, and only those; a
// replay reads them back over its own.
func TestCommandRecord(t *testing.T) {
	dir := t.TempDir()
	o := Defaults()
	o.Program, o.Args, o.NP, o.Launcher, o.Timeout = "./app", []string{"x", "y"}, 4, "srun", 0
	o.Buffering, o.Buffers, o.Clocks, o.MaxInterleavings, o.ReplayHook = "zero", "precise", "vector", 7, "rm -f x"
	o.MPI = "mpich"                   // a program that loads its MPI at run time: its replays load the same
	o.Deterministic, o.Seed = true, 7 // a replay of a deterministic run is one again, with its seed
	if err := saveCommand(dir, o); err != nil {
		t.Fatal(err)
	}
	got := Defaults()
	if err := loadCommand(dir, &got); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("./app")
	want := o
	want.Program, want.MaxInterleavings, want.ReplayHook = abs, 1000, "" // not recorded
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back %+v\nwant %+v", got, want)
	}
	// An older run directory's record (the same keys, launcher omitted).
	old := `{"program": "/bin/app", "args": [], "np": 2, "timeout": 300000000000, "buffering": "mpi", "buffers": "on", "clocks": "lamport"}`
	os.WriteFile(filepath.Join(dir, commandFile), []byte(old), 0o644)
	got = Defaults()
	if err := loadCommand(dir, &got); err != nil || got.Program != "/bin/app" || got.NP != 2 || got.Timeout != 5*time.Minute {
		t.Errorf("older record: %v %+v", err, got)
	}
	if err := loadCommand(t.TempDir(), &got); err == nil || !strings.Contains(err.Error(), "not an mpivet run directory") {
		t.Errorf("no record: %v", err)
	}
}

// layer.conf holds the settings of the options with a conf key.
func TestConfLines(t *testing.T) {
	o := Defaults()
	o.Buffering, o.Buffers, o.GDB = "zero", "precise", 1
	got := strings.Join(o.confLines(), "\n")
	if got != "buffering=zero\nbuffers=precise\nclocks=lamport\narguments=on\nwait=auto\nrecords=fold\ngdb=1" {
		t.Errorf("conf lines:\n%s", got)
	}
}

// Deterministic mode: its flags parse into Options, Validate turns the
// clock protocol off (one checked run) and refuses a seed without it, and
// the ranks get the seed as deterministic=SEED, 0 included.
func TestDeterministicOptions(t *testing.T) {
	o := Defaults()
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	o.Flags(fs, false)
	if err := fs.Parse([]string{"-n", "2", "--deterministic", "--seed", "7", "prog"}); err != nil {
		t.Fatal(err)
	}
	o.Program = "prog"
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if !o.Deterministic || o.Seed != 7 || o.Clocks != "off" {
		t.Errorf("validated %+v", o)
	}
	dir := t.TempDir()
	o.Buffers = "off" // no MPI to ask about shared memory
	for seed, want := range map[uint64]string{7: "\ndeterministic=7\n", 0: "\ndeterministic=0\n"} {
		o.Seed = seed
		if err := WriteLayerConf(dir, nil, o, RunFiles{}); err != nil {
			t.Fatal(err)
		}
		if conf, _ := os.ReadFile(filepath.Join(dir, confFile)); !strings.Contains(string(conf), want) || !strings.Contains(string(conf), "clocks=off\n") {
			t.Errorf("seed %d: layer.conf\n%s", seed, conf)
		}
	}
	o.Deterministic = false
	if err := WriteLayerConf(dir, nil, o, RunFiles{}); err != nil {
		t.Fatal(err)
	}
	if conf, _ := os.ReadFile(filepath.Join(dir, confFile)); strings.Contains(string(conf), "deterministic") {
		t.Errorf("not deterministic, yet layer.conf\n%s", conf)
	}
	p := Options{NP: 1, Program: "p", Seed: 3}
	if err := p.Validate(); err == nil || err.Error() != "--seed: only with --deterministic" {
		t.Errorf("a seed without --deterministic: %v", err)
	}
}

// The default budget: the larger of 2 minutes and 20 first runs, at most
// 30 minutes.
func TestAutoBudget(t *testing.T) {
	for _, c := range []struct{ first, want time.Duration }{
		{time.Second, 2 * time.Minute}, {30 * time.Second, 10 * time.Minute}, {5 * time.Minute, 30 * time.Minute}} {
		if got := AutoBudget(c.first); got != c.want {
			t.Errorf("AutoBudget(%s) = %s, want %s", c.first, got, c.want)
		}
	}
}

// Every number that is a flag is checked: a value below its least one is
// refused with a message naming the flag, and its least value passes. A
// numeric flag added without a line here fails.
func TestNumbersChecked(t *testing.T) {
	table := []struct{ flag, bad, msg, good string }{
		{"np", "0", "-n 0: the number of ranks must be at least 1", "1"},
		{"np", "-3", "-n -3: the number of ranks must be at least 1", "1"},
		{"timeout", "-1s", "--timeout -1s: must be 0 (no limit) or more", "0"},
		{"budget", "-5m", "--budget -5m0s: must be 0 (automatic) or more", "0"},
		{"max-interleavings", "-1", "--max-interleavings -1: must be 0 (no limit) or more", "0"},
		{"mixing-bound", "-2", "--mixing-bound -2: must be -1 (all) or more", "-1"},
		{"order-bound", "-2", "--order-bound -2: must be -1 (every order) or more", "-1"},
		{"jobs", "-1", "--jobs -1: must be 0 (from the cores) or more", "0"},
		{"gdb", "-2", "--gdb -2: must be -1 (none) or more", "-1"},
		{"gdb", "2", "--gdb 2: no such rank (the ranks are 0 to 1)", "1"},
		{"seed", "-1", `invalid argument "-1" for "--seed" flag`, "0"},
	}
	covered := map[string]bool{}
	for _, c := range table {
		covered[c.flag] = true
		for _, v := range []string{c.bad, c.good} {
			o := Defaults()
			o.NP, o.Program = 2, "p"
			fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
			fs.SetOutput(io.Discard)
			o.Flags(fs, c.flag == "gdb") // --gdb is mpivet replay's
			err := fs.Parse([]string{"--" + c.flag + "=" + v})
			if err == nil {
				err = o.Validate()
			}
			if v == c.good && err != nil {
				t.Errorf("--%s=%s: %v", c.flag, v, err)
			}
			if v == c.bad && (err == nil || !strings.Contains(err.Error(), c.msg)) {
				t.Errorf("--%s=%s: %v, want %q", c.flag, v, err, c.msg)
			}
		}
	}
	var o Options
	for _, opt := range options {
		switch opt.field(&o).(type) {
		case *int, *uint64, *time.Duration:
			if opt.flag != "" && !covered[opt.flag] {
				t.Errorf("numeric flag --%s: no line in this test", opt.flag)
			}
		}
	}
}

// The ranks of a run on this host must fit in the processes it can have:
// two per rank, times the replays run at once; ranks another launcher
// places are not counted here.
func TestRanksFit(t *testing.T) {
	l := hostLimits{procs: 32768, what: "kernel.pid_max"}
	for _, c := range []struct {
		o   Options
		msg string
	}{
		{Options{NP: 16384}, ""},
		{Options{NP: 16385}, "-n 16385: too many ranks for this host: each rank is two processes (mpivet's supervisor and the program), and at most 32768 processes can exist here (kernel.pid_max), so at most 16384 ranks"},
		{Options{NP: 100000, Launcher: "srun"}, ""},
		{Options{NP: 4096, Jobs: 4}, ""},
		{Options{NP: 4096, Jobs: 5}, "--jobs 5 with -n 4096: 5 replays at once are 40960 processes (two per rank), and at most 32768 processes can exist here (kernel.pid_max): use --jobs 4 or less"},
	} {
		err := ranksFit(&c.o, l)
		if c.msg == "" && err != nil || c.msg != "" && (err == nil || err.Error() != c.msg) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.msg)
		}
	}
	if os.Getenv("SLURM_JOB_ID") == "" {
		// No host has 2^31 process ids (Linux: at most 2^22).
		o := Options{NP: 1 << 30, Program: "p"}
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "too many ranks for this host") {
			t.Errorf("-n %d: %v", o.NP, err)
		}
	}
}

// What a run reads and where it writes is checked before anything is
// created: a bad input leaves no run directory behind, and a run directory
// made before the input was found bad, with nothing run in it, is removed.
func TestInputsCheckedFirst(t *testing.T) {
	tmp := t.TempDir()
	prog := filepath.Join(tmp, "prog")
	os.WriteFile(prog, []byte("not run"), 0o755)
	unreadable := filepath.Join(tmp, "supp") // a directory: unreadable as a file, even by root
	os.Mkdir(unreadable, 0o755)
	file := filepath.Join(tmp, "file")
	os.WriteFile(file, nil, 0o644)
	for _, c := range []struct {
		program, supp, dir, msg string
	}{
		{filepath.Join(tmp, "missing"), "", "", "missing: no such file"},
		{"no-such-program-in-path", "", "", "no-such-program-in-path: no such file, nor a program of that name in PATH"},
		{tmp, "", "", ": not an executable file (a directory)"},
		{prog, filepath.Join(tmp, "missing.supp"), "", "suppressions: "},
		{prog, unreadable, "", "suppressions: "},
		{prog, "", file, "--dir " + file + ": not a directory"},
		{prog, "", "", "--launcher \"no-such-launcher -x\": "},
		// not an MPI program: found once the run directory is made, which
		// is removed again, having nothing in it
		{prog, "", "", ""},
	} {
		o := Defaults()
		o.NP, o.Program, o.Suppressions, o.Dir = 2, c.program, c.supp, c.dir
		if strings.HasPrefix(c.msg, "--launcher") {
			o.Launcher = "no-such-launcher -x"
		}
		if o.Dir == "" {
			o.Dir = filepath.Join(tmp, "run")
		}
		_, err := Verify(context.Background(), o)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%+v: %v, want %q", c, err, c.msg)
		}
		if _, err := os.Stat(filepath.Join(tmp, "run")); err == nil {
			t.Fatalf("%+v: a run directory was created", c)
		}
	}
	run := filepath.Join(tmp, "earlier")
	os.Mkdir(run, 0o755)
	o := Defaults()
	o.NP, o.Program = 2, prog
	saveCommand(run, o)
	explore.WriteDecisions(filepath.Join(run, completeFile), nil)
	_, err := Replay(context.Background(), ReplayOptions{Dir: run, Interleaving: 1, GDB: -1, Suppressions: unreadable})
	var made []string // besides the lock the replay holds
	ents, _ := os.ReadDir(run)
	for _, e := range ents {
		if e.Name() != rundir.LockFile {
			made = append(made, e.Name())
		}
	}
	if err == nil || !strings.Contains(err.Error(), "suppressions: ") || len(made) != 2 {
		t.Errorf("replay with an unreadable suppression file: %v, and %v in the run directory", err, made)
	}
}
