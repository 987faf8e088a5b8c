package check_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"mpivet/check"
	"mpivet/trace"
)

// A shared analysis runs once per Unit however many checks require it,
// before them, and they read its result through ResultOf.
func TestRequiresRunsOnce(t *testing.T) {
	runs := 0
	shared := &check.Check{Name: "shared", Doc: "shared result", ResultType: reflect.TypeOf(0),
		Run: func(*check.Pass) (any, error) { runs++; return 42, nil }}
	var got []any
	reader := func(name string) *check.Check {
		return &check.Check{Name: name, Doc: "reads shared", Requires: []*check.Check{shared},
			Run: func(p *check.Pass) (any, error) {
				got = append(got, p.ResultOf[shared])
				p.Report(check.Finding{Message: name})
				return nil, nil
			}}
	}
	checks := []*check.Check{reader("a"), reader("b")}
	if err := check.Validate(checks); err != nil {
		t.Fatal(err)
	}
	u := check.NewUnit(&check.Input{})
	if r, err := u.Result(shared); err != nil || r != 42 {
		t.Fatalf("Result = %v, %v", r, err)
	}
	fs, err := u.Findings(checks)
	if err != nil {
		t.Fatal(err)
	}
	if runs != 1 || len(got) != 2 || got[0] != 42 || got[1] != 42 {
		t.Errorf("shared ran %d times; readers saw %v", runs, got)
	}
	if len(fs) != 2 || fs[0].Message != "a" || fs[1].Kind != "b" {
		t.Errorf("findings: %+v", fs)
	}
	if len(shared.AllKinds()) != 0 || !shared.ResultOnly() {
		t.Error("a check with a ResultType and no Kinds reports nothing")
	}
}

// A result of another type than the ResultType, and a failing requirement,
// are errors of the checks.
func TestResultErrors(t *testing.T) {
	liar := &check.Check{Name: "liar", Doc: "x", ResultType: reflect.TypeOf(""),
		Run: func(*check.Pass) (any, error) { return 1, nil }}
	user := &check.Check{Name: "user", Doc: "x", Requires: []*check.Check{liar},
		Run: func(*check.Pass) (any, error) { return nil, nil }}
	if _, err := check.Run([]*check.Check{user}, &check.Input{}); err == nil || !strings.Contains(err.Error(), "liar") {
		t.Errorf("a result of the wrong type was accepted: %v", err)
	}
}

// Validate follows Requires: a cycle, a nil or malformed requirement, and
// two checks of one name are rejected.
func TestValidateRequires(t *testing.T) {
	run := func(*check.Pass) (any, error) { return nil, nil }
	a := &check.Check{Name: "a", Doc: "x", Run: run}
	b := &check.Check{Name: "b", Doc: "x", Run: run, Requires: []*check.Check{a}}
	a.Requires = []*check.Check{b}
	if err := check.Validate([]*check.Check{a}); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("cycle: %v", err)
	}
	if _, err := check.Run([]*check.Check{a}, &check.Input{}); err == nil {
		t.Error("a cycle ran")
	}
	for name, c := range map[string]*check.Check{
		"nil":       {Name: "c", Doc: "x", Run: run, Requires: []*check.Check{nil}},
		"malformed": {Name: "c", Doc: "x", Run: run, Requires: []*check.Check{{Name: "d", Run: run}}},
		"same name": {Name: "c", Doc: "x", Run: run, Requires: []*check.Check{{Name: "c", Doc: "x", Run: run}}},
	} {
		if err := check.Validate([]*check.Check{c}); err == nil {
			t.Errorf("%s requirement accepted", name)
		}
	}
	ok := &check.Check{Name: "e", Doc: "x", Run: run}
	if err := check.Validate([]*check.Check{{Name: "f", Doc: "x", Run: run, Requires: []*check.Check{ok}},
		{Name: "g", Doc: "x", Run: run, Requires: []*check.Check{ok}}}); err != nil {
		t.Errorf("a requirement shared by two checks: %v", err)
	}
	if err := check.Validate([]*check.Check{ok, ok}); err == nil {
		t.Error("a check registered twice was accepted")
	}
}

// An analysis its run stops (trace.Run.StopWhen) ends at the next read of
// the records: Findings returns the findings of the checks that ended
// before, and trace.ErrStopped.
func TestStoppedAnalysisKeepsEarlierFindings(t *testing.T) {
	run := &trace.Run{}
	stop := false
	run.StopWhen(func() bool { return stop })
	first := &check.Check{Name: "first", Doc: "ends", Run: func(p *check.Pass) (any, error) {
		p.Report(check.Finding{Message: "found"})
		stop = true // the time limit passes
		return nil, nil
	}}
	second := &check.Check{Name: "second", Doc: "is stopped", Run: func(p *check.Pass) (any, error) {
		p.In.Run.CheckStop()
		p.Report(check.Finding{Message: "never"})
		return nil, nil
	}}
	fs, err := check.NewUnit(&check.Input{Run: run}).Findings([]*check.Check{first, second})
	if !errors.Is(err, trace.ErrStopped) || len(fs) != 1 || fs[0].Message != "found" {
		t.Errorf("Findings = %+v, %v; want the first check's finding and trace.ErrStopped", fs, err)
	}
	run.StopWhen(nil)
	run.CheckStop() // no longer stopped: no panic
}

// A check stopped by the bound on the analysis (trace.ErrStopped) ends
// Findings with the findings of the checks before it and a check.Stopped
// naming it and the checks after it, which did not run.
func TestFindingsStoppedNamesChecksNotRun(t *testing.T) {
	ran := 0
	mk := func(name string, stop bool) *check.Check {
		return &check.Check{Name: name, Doc: name, Run: func(p *check.Pass) (any, error) {
			ran++
			if stop {
				return nil, trace.ErrStopped
			}
			p.Report(check.Finding{Kind: name, Severity: check.Warning, Message: name})
			return nil, nil
		}}
	}
	fs, err := check.NewUnit(&check.Input{}).Findings([]*check.Check{mk("a", false), mk("b", true), mk("c", false)})
	var s *check.Stopped
	if !errors.Is(err, trace.ErrStopped) || !errors.As(err, &s) || strings.Join(s.NotRun, ",") != "b,c" {
		t.Fatalf("error %v, want a check.Stopped naming b and c", err)
	}
	if len(fs) != 1 || fs[0].Kind != "a" || ran != 2 {
		t.Errorf("findings %v after %d checks ran, want a's only after 2", fs, ran)
	}
}
