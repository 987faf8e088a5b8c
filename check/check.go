// Package check is mpivet's analysis framework: every check is a Check value
// with a name, documentation and a Run function that reads the records of one
// execution (one interleaving) through a Pass and reports typed Findings.
//
// It follows golang.org/x/tools/go/analysis: checks are small, independent,
// and know nothing about how the program was launched or how findings are
// printed. A check lists in Requires the shared analyses it reads (objects,
// communicators, wait state: result-only checks, with a ResultType and no
// Kinds) and finds their results in Pass.ResultOf; a Unit runs each analysis
// once per execution, before the checks that require it. Validate rejects
// malformed checks, requirements and cycles in one test for all of them.
// A check's documentation (Doc, and KindDocs for each kind it reports) is
// Markdown embedded in its package, read by Docs: the text mpivet explain
// prints, from which docs/checks.md is generated. Merging findings across
// ranks and interleavings, and printing them, is package report's.
package check

import (
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"mpivet/api"
	"mpivet/symbolize"
	"mpivet/trace"
)

// Severity of a finding. An error makes the verdict "error".
type Severity string

const (
	Error   Severity = "error"
	Warning Severity = "warning"
)

// Location is a source location in one rank.
type Location struct {
	Rank     int    `json:"rank"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Function string `json:"function"`
	Call     string `json:"call,omitempty"` // the MPI call made there, if any
	Path     string `json:"path,omitempty"` // full path of File
	Note     string `json:"note,omitempty"` // what happened there
	// The machine address, for binaries without debug information: the
	// executable or library (full path), the address in it as
	// addr2line -e MODULE OFFSET takes it ("0x1234"), and the ELF symbol
	// there, if any ("main+0x1c").
	Module string `json:"module,omitempty"`
	Offset string `json:"offset,omitempty"`
	Symbol string `json:"symbol,omitempty"`
}

// SetSource fills the source position and machine address from s.
func (l *Location) SetSource(s symbolize.Location) {
	l.File, l.Line, l.Function, l.Path = s.File, s.Line, s.Function, s.Path
	l.Module, l.Symbol, l.Offset = s.Module, s.Symbol, ""
	if s.Offset != 0 {
		l.Offset = fmt.Sprintf("%#x", s.Offset)
	}
}

// Where formats the source position, file:line in function, or without
// debug information the machine address, module+0xoffset in symbol.
func (l Location) Where() string {
	if l.File == "" && l.Function == "" && l.Module == "" {
		return "(unknown location)"
	}
	s := symbolize.Location{File: l.File, Line: l.Line, Function: l.Function, Module: l.Module, Symbol: l.Symbol}
	s.Offset, _ = strconv.ParseUint(l.Offset, 0, 64)
	return s.String()
}

// String formats the location for a terminal, with the call made there.
func (l Location) String() string {
	s := l.Where()
	if l.Call != "" {
		s = l.Call + " at " + s
	}
	return s
}

// Finding is one problem found in one execution.
type Finding struct {
	Kind         string     `json:"kind"`
	Severity     Severity   `json:"severity"`
	Ranks        []int      `json:"ranks"`
	Message      string     `json:"message"`
	Locations    []Location `json:"locations"`
	Interleaving int        `json:"interleaving"`
	// Fingerprint identifies the finding across interleavings and runs
	// (package report computes it).
	Fingerprint string `json:"fingerprint,omitempty"`
	// Graph is a drawing that goes with the finding (the wait-for graph of
	// a deadlock), which the report's DOT printer writes.
	Graph *Graph `json:"-"`
}

// Graph is a graph in Graphviz's DOT language, to be written in Dir as
// Name.dot (and Name.svg where Graphviz is installed).
type Graph struct {
	Dir, Name string
	DOT       string
}

// Path is the file a finding's message names for the graph: Name.svg where
// Graphviz's dot is installed to draw it, else Name.dot.
func (g *Graph) Path() string {
	if _, err := exec.LookPath("dot"); err == nil {
		return filepath.Join(g.Dir, g.Name+".svg")
	}
	return filepath.Join(g.Dir, g.Name+".dot")
}

// Input is one execution of the program, as the checks see it.
type Input struct {
	Run      *trace.Run
	NP       int  // ranks requested
	TimedOut bool // mpivet stopped the run at its time limit
	Stalled  bool // mpivet stopped the run: no progress, and it could not resume
	// Interrupted: mpivet stopped the run before its end at its user's
	// request (a signal) or at its time budget; what it did up to then is
	// checked, how it ended is not.
	Interrupted bool
	// Ended: mpivet ended the run soon after a rank failed, killing the
	// ranks still running (launch.Result.Failed): their SIGKILL is mpivet's.
	Ended   bool
	Timeout time.Duration // that limit
	Sym     *symbolize.Symbolizer
	// What the launcher said on its error stream (the end of it): where an
	// MPI library explains why it ended a job.
	LauncherOutput string
	LauncherExit   int
	// OOMKills: how many processes the kernel's OOM killer ended on
	// mpivet's host while the run ran (/proc/vmstat oom_kill; 0 also when
	// unknown).
	OOMKills int64
}

// Check is one analysis: a check that reports findings, or a shared
// analysis that only computes a result for others (result-only: a
// ResultType and no Kinds), as go/analysis's Analyzer.
type Check struct {
	Name string // identifier; also the Kind of its findings unless Kinds says otherwise
	Doc  string // first line: short lowercase title; then details
	// Kinds lists the finding kinds the check reports (default: Name,
	// none for a result-only analysis). A finding of any other kind is an
	// error of the check.
	Kinds []string
	// KindDocs explains each kind other than Name, in Doc's form (a short
	// lowercase title, then details): mpivet explain KIND prints it, and
	// Validate rejects a declared kind without one.
	KindDocs map[string]string
	// Requires are the analyses whose results Run reads (Pass.ResultOf):
	// each runs once per execution, before the checks that require it.
	Requires []*Check
	// ResultType is the type of the value Run returns (nil: Run returns
	// nil). With no Kinds the check is a result-only analysis.
	ResultType reflect.Type
	Run        func(*Pass) (any, error)
}

// ResultOnly reports whether the check only computes a result for others.
func (c *Check) ResultOnly() bool { return c.ResultType != nil && len(c.Kinds) == 0 }

// AllKinds returns the kinds of finding the check reports.
func (c *Check) AllKinds() []string {
	if c.ResultOnly() {
		return nil
	}
	if len(c.Kinds) == 0 {
		return []string{c.Name}
	}
	return c.Kinds
}

func (c *Check) reports(kind string) bool {
	for _, k := range c.AllKinds() {
		if k == kind {
			return true
		}
	}
	return false
}

// Explain returns what a finding of kind means, as the check reports it:
// its KindDocs entry, or for the kind named after the check its Doc.
func (c *Check) Explain(kind string) (string, bool) {
	if !c.reports(kind) {
		return "", false
	}
	if d, ok := c.KindDocs[kind]; ok && d != "" {
		return d, true
	}
	if kind == c.Name {
		return c.Doc, true
	}
	return "", false
}

// Explanation is what one check says about a kind of finding.
type Explanation struct {
	Check *Check
	Text  string
}

// Explain collects what the checks say about kind: one explanation per
// check that reports it (two checks report truncation: one from errors
// returned to the program, one from the MPI's fatal handler).
func Explain(checks []*Check, kind string) []Explanation {
	var out []Explanation
	for _, c := range checks {
		if t, ok := c.Explain(kind); ok {
			out = append(out, Explanation{c, t})
		}
	}
	return out
}

// Pass connects a Check to one Input.
type Pass struct {
	Check *Check
	In    *Input
	// ResultOf holds the results of the checks in Check.Requires.
	ResultOf   map[*Check]any
	findings   []Finding
	undeclared []string // kinds reported but not declared
}

// Report records a finding. Kind defaults to the check's name, severity to
// error; a kind the check does not declare is an error of the check (Run
// returns it), so that every kind a user sees can be explained.
func (p *Pass) Report(f Finding) {
	if f.Kind == "" {
		f.Kind = p.Check.Name
	}
	if !p.Check.reports(f.Kind) {
		p.undeclared = append(p.undeclared, f.Kind)
		return
	}
	if f.Severity == "" {
		f.Severity = Error
	}
	if f.Ranks == nil {
		seen := map[int]bool{}
		for _, l := range f.Locations {
			if !seen[l.Rank] {
				seen[l.Rank] = true
				f.Ranks = append(f.Ranks, l.Rank)
			}
		}
		sort.Ints(f.Ranks)
	}
	p.findings = append(p.findings, f)
}

// At returns the location of call c of process proc.
func (p *Pass) At(proc *trace.Process, c *trace.Call) Location {
	if c == nil {
		return Location{Rank: proc.Rank}
	}
	return p.AtSite(proc, c.Name(), c.PC)
}

// AtSite returns the location of a call to the MPI function named call
// made from call site pc (a return address) in process proc.
func (p *Pass) AtSite(proc *trace.Process, call string, pc uint64) Location {
	l := Location{Rank: proc.Rank, Call: call}
	if p.In.Sym != nil {
		l.SetSource(p.In.Sym.Lookup(proc.Maps, pc))
	}
	return l
}

// AtAccess returns the location of a memory access the layer caught, from
// its call stack pcs (the faulting instruction first, then its callers):
// the first frame, from the faulting instruction outwards, that has a
// source line, so that an access made in a library function such as memcpy
// is reported where the program called it; with no such frame, the
// function of the faulting instruction.
func (p *Pass) AtAccess(proc *trace.Process, pcs []uint64) Location {
	l := Location{Rank: proc.Rank}
	if p.In.Sym == nil || len(pcs) == 0 {
		return l
	}
	for i, pc := range pcs {
		s := p.In.Sym.Lookup(proc.Maps, pc)
		if i == 0 {
			s = p.In.Sym.LookupExact(proc.Maps, pc)
		}
		if s.File != "" {
			l.SetSource(s)
			return l
		}
	}
	l.SetSource(p.In.Sym.LookupExact(proc.Maps, pcs[0]))
	return l
}

// AtStack returns the location of a thread's wait from the return
// addresses found on its stack (trace.SleepingThread.Stack, innermost
// first): the first that has a source line, or else the first.
func (p *Pass) AtStack(proc *trace.Process, pcs []uint64) Location {
	l := Location{Rank: proc.Rank}
	if p.In.Sym == nil || len(pcs) == 0 {
		return l
	}
	for _, pc := range pcs {
		if s := p.In.Sym.Lookup(proc.Maps, pc); s.File != "" {
			l.SetSource(s)
			return l
		}
	}
	l.SetSource(p.In.Sym.Lookup(proc.Maps, pcs[0]))
	return l
}

// Describe renders a call with its interesting arguments, e.g.
// MPI_Recv(source=2, tag=0, comm=MPI_COMM_WORLD).
func Describe(proc *trace.Process, c *trace.Call) string {
	var args []string
	for i, f := range c.Def.In {
		v := c.In(i)
		if c.Brief && v == trace.Unknown {
			continue // not in its brief record
		}
		switch f.Kind {
		case api.FInt:
			if strings.HasSuffix(f.Name, "_stride") {
				continue
			}
			if f.Name == "count" || strings.HasSuffix(f.Name, "count") {
				args = append(args, fmt.Sprintf("%s=%d", f.Name, int64(v)))
				continue
			}
			args = append(args, fmt.Sprintf("%s=%s", f.Name, intName(proc, f.Name, int64(v))))
		case api.FHandle:
			args = append(args, fmt.Sprintf("%s=%s", f.Name, HandleName(proc, v)))
		case api.FHandles:
			var hs []string
			for _, h := range c.InWords(i) {
				hs = append(hs, HandleName(proc, h))
			}
			if len(hs) > 8 {
				hs = append(hs[:8], fmt.Sprintf("... %d in all", len(c.InWords(i))))
			}
			args = append(args, fmt.Sprintf("%s=[%s]", f.Name, strings.Join(hs, " ")))
		}
	}
	switch f := c.File(); { // what the layer logged of an open or a view (MPI-IO)
	case f != nil && f.View:
		args = append(args, fmt.Sprintf("datarep=%q", f.Datarep))
	case f != nil && len(args) > 0: // after the communicator, as in the call
		args = append([]string{args[0], fmt.Sprintf("filename=%q", f.Name)}, args[1:]...)
	}
	return c.Name() + "(" + strings.Join(args, ", ") + ")"
}

func intName(proc *trace.Process, field string, v int64) string {
	consts := map[string][]string{
		"source": {"MPI_ANY_SOURCE", "MPI_PROC_NULL"}, "dest": {"MPI_PROC_NULL"},
		"tag": {"MPI_ANY_TAG"}, "recvtag": {"MPI_ANY_TAG"}, "root": {"MPI_ROOT", "MPI_PROC_NULL"},
	}
	for _, name := range consts[field] {
		if c, ok := proc.Const(name); ok && int64(c) == v {
			return name
		}
	}
	return fmt.Sprint(v)
}

// HandleName names a handle: a predefined one by its MPI name, others in hex.
func HandleName(proc *trace.Process, v uint64) string {
	if names := proc.Consts[v]; len(names) > 0 {
		return names[0]
	}
	if v == trace.Unknown {
		return "?"
	}
	return HandleHex(v)
}

// amodes are the access mode bits of MPI_File_open, in the order they are
// shown.
var amodes = []string{"MPI_MODE_RDONLY", "MPI_MODE_WRONLY", "MPI_MODE_RDWR", "MPI_MODE_CREATE", "MPI_MODE_EXCL",
	"MPI_MODE_DELETE_ON_CLOSE", "MPI_MODE_UNIQUE_OPEN", "MPI_MODE_SEQUENTIAL", "MPI_MODE_APPEND"}

// AmodeName shows an access mode as a program writes it
// (MPI_MODE_CREATE|MPI_MODE_RDWR), from the values the rank's MPI gives
// the modes; a number if some bit is none of them.
func AmodeName(proc *trace.Process, v int64) string {
	var parts []string
	left := v
	for _, n := range amodes {
		if c, ok := proc.Const(n); ok && c != 0 && v&int64(c) != 0 {
			parts = append(parts, n)
			left &^= int64(c)
		}
	}
	if len(parts) == 0 || left != 0 {
		return fmt.Sprint(v)
	}
	return strings.Join(parts, "|")
}

// HandleHex formats a handle value in hex as the MPI has it. The layer
// records handles as 64-bit words; MPICH's are C ints, so those with the
// high bit set (every derived datatype: 0x8c000003) arrive sign-extended,
// and print as the 32-bit value MPICH and its debuggers show. No 64-bit
// user-space pointer (Open MPI's handles) has its upper 33 bits set.
func HandleHex(v uint64) string {
	if v>>31 == 1<<33-1 {
		v &= 1<<32 - 1
	}
	return fmt.Sprintf("%#x", v)
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// Validate checks that the checks, and the analyses they require, are well
// formed: names unique, documented, with a Run function, every kind
// explained, every requirement a valid check, and no cycle in Requires.
func Validate(checks []*Check) error {
	byName := map[string]*Check{}
	state := map[*Check]int{} // 1 visiting, 2 done
	var errs []error
	var visit func(c *Check, from string)
	visit = func(c *Check, from string) {
		if c == nil {
			errs = append(errs, fmt.Errorf("check %s: requires a nil check", from))
			return
		}
		switch state[c] {
		case 1:
			errs = append(errs, fmt.Errorf("check %s: cycle in Requires through %s", from, c.Name))
			return
		case 2:
			if from == "" {
				errs = append(errs, fmt.Errorf("check %s: registered twice", c.Name))
			}
			return
		}
		state[c] = 1
		errs = append(errs, validate(c, byName)...)
		for _, r := range c.Requires {
			visit(r, c.Name)
		}
		state[c] = 2
	}
	for _, c := range checks {
		visit(c, "")
	}
	return errors.Join(errs...)
}

// validate checks one check; byName holds those seen, to find two with one name.
func validate(c *Check, byName map[string]*Check) []error {
	var errs []error
	switch {
	case !nameRE.MatchString(c.Name):
		errs = append(errs, fmt.Errorf("check %q: name must be lower-case words joined by '-'", c.Name))
	case c.Doc == "":
		errs = append(errs, fmt.Errorf("check %s: no documentation", c.Name))
	case c.Run == nil:
		errs = append(errs, fmt.Errorf("check %s: no Run function", c.Name))
	case byName[c.Name] != nil && byName[c.Name] != c:
		errs = append(errs, fmt.Errorf("check %s: two checks have that name", c.Name))
	}
	byName[c.Name] = c
	for _, k := range c.AllKinds() {
		if !nameRE.MatchString(k) {
			errs = append(errs, fmt.Errorf("check %s: kind %q must be lower-case words joined by '-'", c.Name, k))
		} else if _, ok := c.Explain(k); !ok {
			errs = append(errs, fmt.Errorf("check %s: kind %s has no explanation (KindDocs)", c.Name, k))
		}
	}
	for k := range c.KindDocs {
		if !c.reports(k) {
			errs = append(errs, fmt.Errorf("check %s: KindDocs explains %s, which is not in Kinds", c.Name, k))
		}
	}
	return errs
}

// Unit is one execution under analysis. It runs each check at most once,
// after the analyses it requires, and keeps its result, so that an analysis
// several checks require (the wait state of a stalled run, the objects of
// every rank) is computed once per execution, and the run driver can ask
// for a result (Result) before or after the checks run.
type Unit struct {
	In      *Input
	actions map[*Check]*action
}

// action is one check run on a Unit.
type action struct {
	running  bool
	result   any
	findings []Finding
	err      error
}

// NewUnit prepares the analysis of one execution.
func NewUnit(in *Input) *Unit { return &Unit{In: in, actions: map[*Check]*action{}} }

// Result runs c (and what it requires) on the unit, once, and returns its result.
func (u *Unit) Result(c *Check) (any, error) {
	a := u.run(c)
	return a.result, a.err
}

func (u *Unit) run(c *Check) *action {
	if a := u.actions[c]; a != nil {
		if a.running {
			return &action{err: fmt.Errorf("check %s: cycle in Requires", c.Name)}
		}
		return a
	}
	a := &action{running: true}
	u.actions[c] = a
	defer func() { a.running = false }()
	p := &Pass{Check: c, In: u.In, ResultOf: map[*Check]any{}}
	for _, r := range c.Requires {
		ra := u.run(r)
		if ra.err != nil {
			a.err = ra.err
			return a
		}
		p.ResultOf[r] = ra.result
	}
	res, err := runCheck(c, p)
	switch {
	case errors.Is(err, trace.ErrStopped):
		a.err = err // (not wrapped: the caller tells a stopped analysis by it)
	case err != nil:
		a.err = fmt.Errorf("check %s: %v", c.Name, err)
	case len(p.undeclared) > 0:
		a.err = fmt.Errorf("check %s: reported kind %q, which it does not declare in Kinds", c.Name, p.undeclared[0])
	case res != nil && reflect.TypeOf(res) != c.ResultType:
		a.err = fmt.Errorf("check %s: result of type %T, not its ResultType %v", c.Name, res, c.ResultType)
	}
	if a.err == nil {
		a.result, a.findings = res, p.findings
	}
	return a
}

// Findings runs the checks on the unit and returns their findings, in the
// order of the checks; the findings of the analyses they require are not
// included (result-only analyses report none). A check that fails is an
// error of mpivet itself. Package report merges them across ranks.
//
// An analysis stopped by its run (trace.Run.StopWhen) returns the
// findings of the checks that ended before, with trace.ErrStopped.
func (u *Unit) Findings(checks []*Check) ([]Finding, error) {
	var all []Finding
	for i, c := range checks {
		a := u.run(c)
		if errors.Is(a.err, trace.ErrStopped) {
			s := &Stopped{}
			for _, r := range checks[i:] {
				s.NotRun = append(s.NotRun, r.Name)
			}
			return all, s
		}
		if a.err != nil {
			return nil, a.err
		}
		all = append(all, a.findings...)
	}
	return all, nil
}

// Stopped is Findings' error when the bound on the analysis stopped it
// (it wraps trace.ErrStopped): NotRun are the checks that did not end,
// the one stopped first.
type Stopped struct{ NotRun []string }

func (s *Stopped) Error() string {
	return "the analysis was stopped; checks not run: " + strings.Join(s.NotRun, ", ")
}

func (s *Stopped) Unwrap() error { return trace.ErrStopped }

// runCheck runs c, a stopped reader of the records its error.
func runCheck(c *Check, p *Pass) (res any, err error) {
	defer trace.Recover(&err)
	return c.Run(p)
}

// PerProcess is a result computed for each process of an execution: the
// result type of a shared analysis that looks at one rank at a time.
type PerProcess[T any] struct{ procs map[*trace.Process]T }

// Of returns the result for process p.
func (r *PerProcess[T]) Of(p *trace.Process) T { return r.procs[p] }

// EachProcess computes f for every process of run.
func EachProcess[T any](run *trace.Run, f func(*trace.Process) T) *PerProcess[T] {
	r := &PerProcess[T]{procs: map[*trace.Process]T{}}
	for _, p := range run.Procs {
		r.procs[p] = f(p)
	}
	return r
}

// Run runs the checks over one execution and returns their findings, as
// Unit.Findings.
func Run(checks []*Check, in *Input) ([]Finding, error) { return NewUnit(in).Findings(checks) }

// Plural returns one or many, as n asks.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// RankList formats ranks compactly: "0-3", "0, 2, 5".
func RankList(ranks []int) string {
	var parts []string
	for i := 0; i < len(ranks); {
		j := i
		for j+1 < len(ranks) && ranks[j+1] == ranks[j]+1 {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, fmt.Sprint(ranks[i]))
		case j == i+1:
			parts = append(parts, fmt.Sprint(ranks[i]), fmt.Sprint(ranks[j]))
		default:
			parts = append(parts, fmt.Sprintf("%d-%d", ranks[i], ranks[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// ErrorClass names an MPI error class, e.g. MPI_ERR_RANK.
func ErrorClass(proc *trace.Process, class int64) string {
	for _, n := range proc.Consts[uint64(class)] {
		if strings.HasPrefix(n, "MPI_ERR_") {
			return n
		}
	}
	return fmt.Sprintf("error class %d", class)
}

// Docs reads a check's documentation from Markdown files (fsys: the check
// package's embedded *.md files, one per kind, named KIND.md): the file
// named after the check is its Doc, every other one the KindDocs entry of
// its kind. Each file is a short lowercase title on its first line, then
// the details; docs/checks.md, the reference of the checks, is generated
// from the same text that mpivet explain prints.
func Docs(fsys fs.FS, name string) (doc string, kindDocs map[string]string) {
	files, err := fs.Glob(fsys, "*.md")
	if err != nil {
		panic(err)
	}
	kindDocs = map[string]string{}
	for _, f := range files {
		b, err := fs.ReadFile(fsys, f)
		if err != nil {
			panic(err)
		}
		kind, text := strings.TrimSuffix(f, ".md"), strings.TrimSpace(string(b))
		if kind == name {
			doc = text
		} else {
			kindDocs[kind] = text
		}
	}
	return doc, kindDocs
}
