package driver

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"mpivet/api"
	"mpivet/explore"
	"mpivet/report"
)

// Options say what to verify and how: the program, its ranks, and every
// setting of the verification. The command line's flags, the run
// directory's command record (command.json) and the ranks' settings
// (RUNDIR/layer.conf) are all derived from it through the table options
// below. Start from Defaults(): a zero Options has no defaults.
type Options struct {
	Program string   // the program: a path, or a name looked up in PATH
	Args    []string // its arguments

	NP               int
	Launcher         string        // a launcher command line replacing the MPI's own, e.g. "srun --mpi=pmix"
	Timeout          time.Duration // of one run (0: no limit)
	Dir              string        // the run directory ("": a new one under ./.mpivet)
	Buffering        string        // mpi, zero, infinite
	BufferingCheck   string        // auto, run, off
	Buffers          string        // on, precise, off
	Clocks           string        // lamport, vector, off
	Arguments        string        // on, off: the layer's argument checks (layer/src/arguments)
	Slack            string        // minimal, off: the buffering-aware exploration
	BufferSends      string        // RANK:N,...: standard sends mpivet buffers in every run
	MaxInterleavings int           // 0: no limit
	Budget           time.Duration // of the whole verification (0: automatic, AutoBudget; none with Exhaustive)
	Exhaustive       bool          // no time budget and no --max-interleavings: explore to the end of the bounds
	CompletionOrders string        // reduce, all: completion orders replayed only where they change later calls, or all
	Explore          string        // program, all: the nondeterminism explored: the program's own call sites, or also those in installed libraries (library.go)
	MixingBound      int           // -1: all
	OrderBound       int
	FirstError       bool
	Jobs             int    // replays at once (0: from the cores and the ranks)
	Wait             string // spin, sleep, auto: how ranks wait in blocking calls (layer/src/wait; wait.go)
	Records          string // fold, full: whether the ranks fold repeated records (layer/src/record/fold.c)
	ReplayHook       string // a shell command run before each replay
	Files            string // restore, off: replays start from the files the first run started from (files.go)
	KeepRecords      bool
	MaxRecords       string // SIZE: the records one rank may write in one run (records.go)
	GDB              int    // replay: this rank waits for a debugger (-1: none)
	MPI              string // openmpi, mpich: the MPI a program loads at run time, when mpivet cannot tell ("": from the program; mpi.Find checks it)
	Deterministic    bool   // deterministic mode (layer/src/determinism): one checked run, clocks off
	Seed             uint64 // with Deterministic: which deterministic schedule
	Suppressions     string // a suppression file ("": report.DefaultSuppressions in the working directory, if there is one)
	// Threads "off": under MPI_THREAD_MULTIPLE the clock protocol stays off
	// from the start; "" (the default): it runs while one thread calls MPI,
	// and the driver sets "off" and runs the program again when another
	// does (threads.go). Not a flag: the driver's, kept for mpivet replay.
	Threads string

	IO
}

// IO is where a verification talks: not settings of the verification,
// so neither flags nor recorded.
type IO struct {
	Stdin    io.Reader // program input, forwarded to rank 0 (nil: none)
	Stdout   io.Writer // program output (nil: os.Stdout); replays' goes to their records only
	Stderr   io.Writer // program errors (nil: os.Stderr)
	Notify   func(string)
	Progress Progress // how the exploration goes (nil: not shown)
	// Trails: the report keeps the trail of each interleaving with a new
	// finding (its space-time diagram, SARIF's thread flows), for the
	// printers that show them; building one reads the interleaving's
	// records again, so it is done only when asked for.
	Trails bool
	// Status, if set, is told the exit status the first run gave, as the
	// program would have given it run natively (NativeStatus): for a
	// launcher that stands in for mpirun.
	Status func(int)
}

// Progress is told how an exploration goes, and when it is over.
type Progress interface {
	Show(explore.Progress)
	Done()
}

// option declares one setting of Options: its field, its flag (with
// its default and usage), its key in the command record, its key in
// layer.conf (one of api.Conf*), and the values it takes. Adding an
// option is adding a field to Options and a line here; the flag, the
// record and the layer's configuration follow.
type option struct {
	field   func(*Options) any // *int, *uint64, *string, *bool, *time.Duration or *[]string
	flag    string             // --flag ("": not on the command line)
	short   string             // -s
	def     any                // default (nil: the zero value)
	usage   string             // the flag's help; a `word` names its value
	record  string             // key in command.json ("": not recorded, so replay takes the default)
	conf    string             // key in layer.conf ("": not a setting of the ranks)
	choices []string           // the values it takes (nil: any)
	aliases map[string]string  // other spellings of choices
	noOpt   string             // the value of the flag given alone (--flag)
	needed  bool               // the flag must be given
	runOnly bool               // a flag of mpivet run, not of mpivet replay (a replay takes the record's)
	least   *least             // a number's least value (every number that is a flag has one)
}

// least is the least value a number takes, and what that value means.
type least struct {
	v     int64 // (a duration: in ns)
	means string
}

var options = []option{
	{field: func(o *Options) any { return &o.Program }, record: "program"},
	{field: func(o *Options) any { return &o.Args }, record: "args"},
	{field: func(o *Options) any { return &o.NP }, flag: "np", short: "n", least: &least{1, "1"}, usage: "number of ranks (required)", record: "np", needed: true, runOnly: true},
	{field: func(o *Options) any { return &o.Launcher }, flag: "launcher", record: "launcher", runOnly: true,
		usage: "launch with this `command` instead of the MPI's own (e.g. \"srun --mpi=pmix\"); mpivet appends -n N"},
	{field: func(o *Options) any { return &o.Timeout }, flag: "timeout", def: 5 * time.Minute, least: &least{0, "0 (no limit)"}, record: "timeout", runOnly: true,
		usage: "stop the run after this long and report what every rank was doing (0: no limit)"},
	{field: func(o *Options) any { return &o.Dir }, flag: "dir", runOnly: true,
		usage: "directory for the run's records, yours and closed to others, one run at a time (default: a new one under ./.mpivet, else under $TMPDIR/mpivet-UID)"},
	{field: func(o *Options) any { return &o.Buffering }, flag: "buffering", def: "mpi", record: "buffering", conf: api.ConfBuffering,
		choices: []string{"mpi", "zero", "infinite"}, runOnly: true,
		usage: "`mpi`: standard-mode sends are buffered as the MPI does; zero: they become synchronous, so programs that rely on buffering deadlock (reported as unsafe-buffering); infinite: mpivet buffers every one, whatever its size, so they complete at once"},
	{field: func(o *Options) any { return &o.BufferingCheck }, flag: "buffering-check", def: "auto", noOpt: "auto",
		choices: []string{"auto", "run", "off"}, aliases: map[string]string{"true": "auto", "false": "off"}, runOnly: true,
		usage: "find deadlocks the MPI's buffering hides (unsafe-buffering): `auto` replays the first interleaving's matches offline with standard-mode sends synchronous and runs the program again that way (as --buffering=zero) only to confirm a suspected deadlock; run: always run it again; off (or false): do not look"},
	{field: func(o *Options) any { return &o.Buffers }, flag: "buffers", def: "on", record: "buffers", conf: api.ConfBuffers,
		choices: []string{"on", "precise", "off"}, runOnly: true,
		usage: "`on`: report accesses to the buffers of pending nonblocking operations (buffer-reuse), at a bounded cost; precise: single-step every access to their pages, whatever it costs; off: do not check them"},
	{field: func(o *Options) any { return &o.Slack }, flag: "slack", def: "minimal", choices: []string{"minimal", "off"}, runOnly: true,
		usage: "`minimal`: also explore the matches that need standard-mode sends buffered, each replayed with the fewest sends buffered by mpivet (seed 001); off: replay the matches the clocks find, as the MPI buffers"},
	// Not recorded: the sends are decisions of interleaving 1, which
	// mpivet replay reads from its decisions file.
	{field: func(o *Options) any { return &o.BufferSends }, flag: "buffer-sends", runOnly: true,
		usage: "buffer these standard-mode sends in every run, as an MPI with the space would: `RANK:N,...`, the rank's N-th MPI_Send or MPI_Isend from 0"},
	{field: func(o *Options) any { return &o.Clocks }, flag: "clocks", def: "lamport", record: "clocks", conf: api.ConfClocks,
		choices: []string{"lamport", "vector", "off"}, runOnly: true,
		usage: "`lamport`: find the other matches of wildcard receives and probes with lazy Lamport clocks and replay them; vector: with vector clocks (exact, piggybacks grow with the ranks); off: check only the run that happens"},
	{field: func(o *Options) any { return &o.Arguments }, flag: "arguments", def: "on", record: "arguments", conf: api.ConfArguments,
		choices: []string{"on", "off"}, runOnly: true,
		usage: "`on`: check every MPI call's arguments before the MPI sees them (invalid-argument); off: do not, to measure what the checks cost or to run a program they would flood"},
	{field: func(o *Options) any { return &o.MaxInterleavings }, flag: "max-interleavings", def: 1000, least: &least{0, "0 (no limit)"}, runOnly: true,
		usage: "stop exploring after this many interleavings (0: no limit)"},
	{field: func(o *Options) any { return &o.Budget }, flag: "budget", least: &least{0, "0 (automatic)"}, runOnly: true,
		usage: "stop the whole verification after this long, the run in progress included, and report what was found (0: the larger of 2 minutes and 20 times the first run, at most 30 minutes; --exhaustive: no limit)"},
	{field: func(o *Options) any { return &o.Exhaustive }, flag: "exhaustive", runOnly: true,
		usage: "explore every outcome the bounds (--mixing-bound, --order-bound) allow, however long it takes: no time budget, no --max-interleavings"},
	{field: func(o *Options) any { return &o.CompletionOrders }, flag: "completion-orders", def: "reduce", choices: []string{"reduce", "all"}, runOnly: true,
		usage: "Waitany, Waitsome, Testany, Testsome: `reduce`: replay one other order per call site and context, and the others only if it changed the MPI calls that follow; all: replay every order the bounds allow"},
	{field: func(o *Options) any { return &o.Explore }, flag: "explore", def: "program", choices: []string{"program", "all"}, runOnly: true,
		usage: "whose nondeterminism to explore: `program`: the call sites of the program's own code (the executable, and the libraries under its directory, its prefix or the working directory), those in installed libraries (every other shared library, e.g. PETSc's) run as they happen and are counted in the report; all: those in installed libraries too"},
	{field: func(o *Options) any { return &o.MixingBound }, flag: "mixing-bound", def: -1, least: &least{-1, "-1 (all)"}, runOnly: true,
		usage: "bounded mixing: below a forced match, explore at most `K` further levels of alternatives (-1: all; 0: one deviation per replay, linear in the wildcard events)"},
	{field: func(o *Options) any { return &o.OrderBound }, flag: "order-bound", least: &least{-1, "-1 (every order)"}, runOnly: true,
		usage: "Waitany, Testany, Waitsome and Testsome: explore at most `K`+1 nested changes of the request they return (0: each other outcome of each call once, about n²/2 replays for a loop over n requests; -1: every completion order, n!)"},
	{field: func(o *Options) any { return &o.FirstError }, flag: "first-error", runOnly: true,
		usage: "stop exploring at the first interleaving with errors"},
	{field: func(o *Options) any { return &o.Jobs }, flag: "jobs", short: "j", least: &least{0, "0 (from the cores)"}, runOnly: true,
		usage: "run up to `N` replays at once (0: the cores divided by the ranks, times 4 under Open MPI, whose waiting ranks sleep, at least 1, at most 8; inside a Slurm allocation, its tasks divided by the ranks, each replay a job step); the report is the same as one at a time"},
	{field: func(o *Options) any { return &o.Wait }, flag: "wait", def: "auto", conf: api.ConfWait, choices: []string{"auto", "spin", "sleep"}, runOnly: true,
		usage: "how ranks wait in blocking calls: spin: as the MPI does (it polls); sleep: the call's nonblocking form, then its test form with a sleeping backoff, which leaves the core to ranks with work; `auto`: sleep when the ranks of the runs at once outnumber the cores"},
	{field: func(o *Options) any { return &o.ReplayHook }, flag: "replay-hook", runOnly: true,
		usage: "run this shell `command` before each replay (with MPIVET_INTERLEAVING and MPIVET_RUN_DIR set), e.g. to remove what the previous run left, so that replays repeat the first run"},
	{field: func(o *Options) any { return &o.Files }, flag: "files", def: "restore", record: "files", choices: []string{"restore", "off"}, runOnly: true,
		usage: "`restore`: every replay starts from the files the first run started from: the files the ranks create, change or remove (anywhere but mpivet's run directory, /proc, /sys and /dev) are put back as they were before each replay, and left as the first run left them; off: replays find what earlier runs left (--replay-hook can clean up)"},
	{field: func(o *Options) any { return &o.KeepRecords }, flag: "keep-records", runOnly: true,
		usage: "keep the records of every replayed interleaving (by default those of replays without a new finding are deleted once checked; their decisions are kept, so mpivet replay still runs them)"},
	{field: func(o *Options) any { return &o.MaxRecords }, flag: "max-records", def: defaultMaxRecords, record: "max_records", runOnly: true,
		usage: "the records one rank may write in one run (`SIZE`: 1GiB, 256MiB, 64M ...; every run and replay): a rank that reaches it stops recording, the report says so and what was not checked, and the verdict is incomplete"},
	{field: func(o *Options) any { return &o.Records }, flag: "records", def: "fold", record: "records", conf: api.ConfRecords, choices: []string{"fold", "full"}, runOnly: true,
		usage: "`fold`: a rank's records of a loop of deterministic calls keep one iteration and how often it repeated (wildcard events, completions and findings are never folded); full: every call its own records, as large as the run is long"},
	{field: func(o *Options) any { return &o.MPI }, flag: "mpi", record: "mpi", runOnly: true,
		usage: "the MPI a program loads at run time (dlopen, a plugin), when mpivet cannot tell: `openmpi` or mpich (Python programs: from mpi4py's linkage)"},
	// Recorded: mpivet replay of a deterministic run runs it
	// deterministically again, with the same seed, instead of forcing
	// matches (which needs the clock protocol the mode turns off).
	{field: func(o *Options) any { return &o.Deterministic }, flag: "deterministic", record: "deterministic", runOnly: true,
		usage: "deterministic mode: wildcard receives (MPI_Irecv and MPI_Sendrecv too) and probes take the earliest message by logical time, and Test, Testany, Testsome, Testall, Iprobe, Waitany and Waitsome see completions at fixed logical points, so every run of the same input matches and completes alike; one checked run, no exploration"},
	{field: func(o *Options) any { return &o.Seed }, flag: "seed", record: "seed", runOnly: true,
		usage: "with --deterministic: another deterministic schedule (tie-break between ranks and the completion delay K); the report prints it"},
	{field: func(o *Options) any { return &o.Suppressions }, flag: "suppressions",
		usage: "silence the findings this `FILE` matches (default: " + report.DefaultSuppressions + " in the working directory, if present)"},
	{field: func(o *Options) any { return &o.Threads }, record: "threads", conf: api.ConfThreads},
	{field: func(o *Options) any { return &o.GDB }, flag: "gdb", def: -1, least: &least{-1, "-1 (none)"}, conf: api.ConfGDB,
		usage: "start this `rank` under a debugger (it waits for gdb -p PID)"},
}

// Defaults returns the options as the command line has them when no
// flag is given.
func Defaults() Options {
	var o Options
	for _, opt := range options {
		if opt.def == nil {
			continue
		}
		switch p := opt.field(&o).(type) {
		case *int:
			*p = opt.def.(int)
		case *string:
			*p = opt.def.(string)
		case *bool:
			*p = opt.def.(bool)
		case *time.Duration:
			*p = opt.def.(time.Duration)
		default:
			panic(fmt.Sprintf("option %s: a default of type %T", opt.flag, p))
		}
	}
	return o
}

// Flags declares the flags of mpivet run (replay false) or mpivet replay
// (replay true) in fs, bound to o's fields with o's values as defaults,
// and returns the names of the flags that must be given.
func (o *Options) Flags(fs *pflag.FlagSet, replay bool) (required []string) {
	for _, opt := range options {
		if opt.flag == "" || (replay && opt.runOnly) || (!replay && opt.flag == "gdb") {
			continue
		}
		switch p := opt.field(o).(type) {
		case *int:
			fs.IntVarP(p, opt.flag, opt.short, *p, opt.usage)
		case *uint64:
			fs.Uint64VarP(p, opt.flag, opt.short, *p, opt.usage)
		case *string:
			fs.StringVarP(p, opt.flag, opt.short, *p, opt.usage)
		case *bool:
			fs.BoolVarP(p, opt.flag, opt.short, *p, opt.usage)
		case *time.Duration:
			fs.DurationVarP(p, opt.flag, opt.short, *p, opt.usage)
		default:
			panic(fmt.Sprintf("option %s: a flag of type %T", opt.flag, p))
		}
		if opt.noOpt != "" {
			fs.Lookup(opt.flag).NoOptDefVal = opt.noOpt
		}
		if opt.needed {
			required = append(required, opt.flag)
		}
	}
	return required
}

// Validate checks the options, and spells every choice as its choices
// list does (aliases replaced, "" the default).
func (o *Options) Validate() error {
	if o.NP < 1 {
		return fmt.Errorf("-n %d: the number of ranks must be at least 1", o.NP)
	}
	if o.Program == "" {
		return fmt.Errorf("no program to run")
	}
	if _, err := explore.ParseSends(o.BufferSends); err != nil {
		return fmt.Errorf("--buffer-sends: %v", err)
	}
	if o.MaxRecords == "" {
		o.MaxRecords = defaultMaxRecords
	}
	if _, err := ParseSize(o.MaxRecords); err != nil {
		return fmt.Errorf("--max-records=%s: %v", o.MaxRecords, err)
	}
	if err := o.checkNumbers(); err != nil {
		return err
	}
	if o.Exhaustive && o.Budget > 0 {
		return errors.New("--exhaustive with --budget: exhaustive has no time budget")
	}
	if o.Jobs > 1 && o.ReplayHook != "" {
		return errors.New("--jobs above 1 with --replay-hook: replays that need a hook between them share what they leave, so they run one at a time (--jobs 1)")
	}
	if o.Deterministic {
		o.Clocks = "off" // no exploration: its forced matches are what determinism rules out
	} else if o.Seed != 0 {
		return errors.New("--seed: only with --deterministic")
	}
	for _, opt := range options {
		if opt.choices == nil {
			continue
		}
		p := opt.field(o).(*string)
		if *p == "" && opt.def != nil {
			*p = opt.def.(string)
		}
		if a, ok := opt.aliases[*p]; ok {
			*p = a
		}
		if !contains(opt.choices, *p) {
			return fmt.Errorf("--%s=%s: must be %s", opt.flag, *p, oneOf(opt.choices))
		}
	}
	return nil
}

// checkNumbers checks every number that is a flag against its least
// value, --gdb against the ranks, and the ranks against what this host
// can start (ranksFit).
func (o *Options) checkNumbers() error {
	for _, opt := range options {
		if opt.least == nil {
			continue
		}
		var v int64
		var text string
		switch p := opt.field(o).(type) {
		case *int:
			v, text = int64(*p), strconv.Itoa(*p)
		case *time.Duration:
			v, text = int64(*p), p.String()
		default:
			panic(fmt.Sprintf("option %s: a least value for a %T", opt.flag, p))
		}
		if v < opt.least.v {
			return fmt.Errorf("--%s %s: must be %s or more", opt.flag, text, opt.least.means)
		}
	}
	if o.GDB >= o.NP {
		return fmt.Errorf("--gdb %d: no such rank (the ranks are 0 to %d)", o.GDB, o.NP-1)
	}
	return ranksFit(o, readHostLimits())
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// oneOf says "a, b or c".
func oneOf(xs []string) string {
	if len(xs) == 1 {
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

// confLines are o's settings for the ranks, one key=value line each, in
// the order of the table; empty strings are not written.
func (o *Options) confLines() []string {
	var lines []string
	for _, opt := range options {
		if opt.conf == "" {
			continue
		}
		var v string
		switch p := opt.field(o).(type) {
		case *int:
			v = strconv.Itoa(*p)
		case *uint64:
			v = strconv.FormatUint(*p, 10)
		case *string:
			v = *p
		case *bool:
			v = strconv.FormatBool(*p)
		case *time.Duration:
			v = p.String()
		default:
			panic(fmt.Sprintf("option %s: a layer setting of type %T", opt.flag, p))
		}
		if v != "" {
			lines = append(lines, opt.conf+"="+v)
		}
	}
	return lines
}
