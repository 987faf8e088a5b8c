package main

import (
	"bytes"
	"strings"
	"testing"

	"mpivet/check"
	"mpivet/checks/all"
)

// Every kind any check declares is explained by mpivet explain, and listed
// by mpivet checks. A kind added to a check's Kinds without a KindDocs
// entry fails here.
func TestExplainEveryKind(t *testing.T) {
	var list bytes.Buffer
	listChecks(&list, all.Checks)
	for _, c := range all.Checks {
		for _, kind := range c.AllKinds() {
			var out bytes.Buffer
			if err := explain(&out, all.Checks, kind); err != nil {
				t.Errorf("explain %s: %v", kind, err)
				continue
			}
			text, _ := c.Explain(kind)
			if text == "" || !strings.Contains(out.String(), text) {
				t.Errorf("explain %s does not print check %s's explanation:\n%s", kind, c.Name, out.String())
			}
			if title := strings.SplitN(text, "\n", 2)[0]; strings.TrimSpace(title) == "" {
				t.Errorf("kind %s of check %s: the explanation must start with a title line", kind, c.Name)
			}
			if !strings.Contains(list.String(), kind) {
				t.Errorf("mpivet checks does not list kind %s", kind)
			}
		}
	}
	if err := explain(&bytes.Buffer{}, all.Checks, "no-such-kind"); err == nil {
		t.Error("explain no-such-kind: no error")
	}
}

// A declared kind without an explanation, or a finding of an undeclared
// kind, is an error of the check.
func TestUnexplainedKind(t *testing.T) {
	run := func(*check.Pass) (any, error) { return nil, nil }
	bad := &check.Check{Name: "some-check", Doc: "title", Kinds: []string{"some-check", "never-explained"}, Run: run}
	if err := check.Validate([]*check.Check{bad}); err == nil || !strings.Contains(err.Error(), "never-explained") {
		t.Errorf("Validate accepted a kind without explanation: %v", err)
	}
	var out bytes.Buffer
	if err := explain(&out, []*check.Check{bad}, "never-explained"); err == nil {
		t.Errorf("explain printed %q for a kind without explanation", out.String())
	}
	good := &check.Check{Name: "some-check", Doc: "title", Kinds: []string{"some-check", "other"},
		KindDocs: map[string]string{"other": "other title\n\ndetails"}, Run: run}
	if err := check.Validate([]*check.Check{good}); err != nil {
		t.Error(err)
	}
	sneaky := &check.Check{Name: "sneaky", Doc: "title", Run: func(p *check.Pass) (any, error) {
		p.Report(check.Finding{Kind: "undeclared"})
		return nil, nil
	}}
	if _, err := check.Run([]*check.Check{sneaky}, &check.Input{}); err == nil {
		t.Error("a finding of an undeclared kind was accepted")
	}
}
