// Package threadlevel defines the check that a program keeps the promise
// of the thread level it asked MPI for: the layer (layer/src/record/levels.c)
// counts the threads inside MPI and compares the calling thread with the one
// that initialised MPI on every call, and logs the calls that break the
// promise (trace.ThreadLevel); this check reports them at their lines.
package threadlevel

import (
	"embed"
	"fmt"

	"mpivet/api"
	"mpivet/check"
	"mpivet/trace"
)

// The check's documentation: thread-level.md is its Doc and the
// explanation of its one kind (mpivet explain thread-level, docs/checks.md).
//
//go:embed *.md
var docFiles embed.FS

var checkDoc, kindDocs = check.Docs(docFiles, "thread-level")

// Check reports MPI calls that break the thread level's promise.
var Check = &check.Check{
	Name:     "thread-level",
	Kinds:    []string{"thread-level"},
	Doc:      checkDoc,
	KindDocs: kindDocs,
	Run:      run,
}

// levels are the names of the thread levels, by value: MPI_THREAD_SINGLE
// through MPI_THREAD_MULTIPLE are 0 to 3 in Open MPI and MPICH alike.
var levels = []string{"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"}

// LevelName names thread level v.
func LevelName(v int) string {
	if v >= 0 && v < len(levels) {
		return levels[v]
	}
	return fmt.Sprintf("thread level %d", v)
}

// key identifies a finding: one per rank, rule broken and pair of sites.
type key struct {
	rank, what int
	pc, other  uint64
}

func run(pass *check.Pass) (any, error) {
	for _, p := range pass.In.Run.Procs {
		if len(p.ThreadLevels) == 0 {
			continue
		}
		asked, how := Required(p)
		seen := map[key]bool{}
		for _, t := range p.ThreadLevels {
			k := key{p.Rank, t.What, t.PC, t.OtherPC}
			if seen[k] {
				continue
			}
			seen[k] = true
			l := pass.AtSite(p, t.Call.Name, t.PC)
			l.Note = "called by " + t.Thread.String()
			locs := []check.Location{l}
			if t.Other != nil {
				o := pass.AtSite(p, t.Other.Name, t.OtherPC)
				o.Note = "the call another thread was inside"
				locs = append(locs, o)
			}
			pass.Report(check.Finding{
				Kind:      "thread-level",
				Message:   message(t, asked, how, p.Level),
				Locations: locs,
			})
		}
	}
	return nil, nil
}

// Required is the thread level rank p asked for, and how: MPI_Init asks
// for MPI_THREAD_SINGLE. -1 when the records do not say.
func Required(p *trace.Process) (int, string) {
	for c := range p.Calls() {
		switch c.Name() {
		case "MPI_Init":
			return 0, "MPI_Init"
		case "MPI_Init_thread":
			return int(c.Int("required")), "MPI_Init_thread"
		}
	}
	return -1, ""
}

func message(t trace.ThreadLevel, asked int, how string, got int) string {
	levels := fmt.Sprintf("the program asked for %s", LevelName(asked))
	if how != "" {
		levels += " (" + how + ")"
	}
	if asked < 0 {
		levels = "the program did not say which thread level it asked for"
	}
	levels += " and got " + LevelName(got)
	other := ""
	if t.Other != nil {
		other = fmt.Sprintf(" while another thread was inside %s", t.Other.Name)
	}
	switch t.What {
	case api.ThreadLevelNotMain:
		return fmt.Sprintf("%s was called by a thread other than the one that initialised MPI%s; %s, under which only "+
			"that thread may call MPI (ask for MPI_THREAD_MULTIPLE, or make the call from the main thread)", t.Call.Name, other, levels)
	case api.ThreadLevelTwo:
		return fmt.Sprintf("%s was called%s: two threads were inside MPI at once; %s, under which the program must "+
			"make its threads call MPI one at a time (a lock around the calls, or MPI_THREAD_MULTIPLE)", t.Call.Name, other, levels)
	case api.ThreadLevelInit:
		if t.Call.Has("init") {
			return fmt.Sprintf("%s was called%s: no thread may call MPI before MPI_Init or MPI_Init_thread returns; %s",
				t.Call.Name, other, levels)
		}
		return fmt.Sprintf("%s was called while MPI was being initialised%s: no thread may call MPI before MPI_Init or "+
			"MPI_Init_thread returns; %s", t.Call.Name, other, levels)
	default:
		if t.Call.Has("finalize") {
			return fmt.Sprintf("%s was called%s: every thread's MPI calls must return before MPI_Finalize is called; %s",
				t.Call.Name, other, levels)
		}
		return fmt.Sprintf("%s was called while MPI was being finalised%s: every thread's MPI calls must return before "+
			"MPI_Finalize is called; %s", t.Call.Name, other, levels)
	}
}
