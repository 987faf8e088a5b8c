package report_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"mpivet/check"
	"mpivet/checks/all"
	"mpivet/internal/sarifcheck"
	"mpivet/report"
)

func validate(t *testing.T, name string, r *report.Report) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := report.NewSARIF(&b, report.RulesOf(all.Checks)).Print(r); err != nil {
		t.Fatal(err)
	}
	if err := sarifcheck.Validate(b.Bytes()); err != nil {
		t.Errorf("%s: the SARIF log does not validate: %v", name, err)
	}
	return b.Bytes()
}

// The schema test must be able to fail: a log without its version is
// rejected.
func TestSARIFSchemaRejects(t *testing.T) {
	if err := sarifcheck.Validate([]byte(`{"runs": [{"tool": {"driver": {}}, "results": [{"ruleId": 3}]}]}`)); err == nil {
		t.Fatal("an invalid log validates")
	}
}

// A finding of every kind the checks declare (so every kind the corpus
// can produce), located by line, by module and offset, and with a trail,
// gives a log that validates; so does every JSON report the corpus left
// under MPIVET_CORPUS_REPORTS, when it is set.
func TestSARIFValidates(t *testing.T) {
	var fs []check.Finding
	for i, ru := range report.RulesOf(all.Checks) {
		if ru.Doc == "" {
			t.Errorf("kind %s has no documentation for its rule", ru.ID)
		}
		loc := check.Location{Rank: i % 3, File: "prog.c", Line: 10 + i, Function: "main", Call: "MPI_Send", Note: "here"}
		if i%2 == 1 {
			loc = check.Location{Rank: i % 3, Module: "/opt/app/prog", Offset: "0x11c9", Symbol: "main+0x1c", Call: "MPI_Send"}
		}
		sev := check.Error
		if i%4 == 3 {
			sev = check.Warning
		}
		fs = append(fs, check.Finding{Kind: ru.ID, Severity: sev, Message: ru.ID + " found", Interleaving: 1 + i%2,
			Locations: []check.Location{loc, {Rank: 2, File: "/abs/other file.c", Line: 3}}})
	}
	r := report.New(fs, "")
	r.Interleavings, r.Ranks, r.Program, r.MPI = 2, 3, "/src/prog", "Open MPI 4.1.4"
	r.Trails = []report.Trail{{Interleaving: 2, Lanes: []report.Lane{
		{Rank: 1, End: "blocked in MPI_Recv", Calls: []report.Call{
			{Seq: 1, Name: "MPI_Recv", Peer: "from any: 2", Forced: true, Loc: check.Location{File: "prog.c", Line: 4}},
			{Seq: 2, Name: "MPI_Recv", Stopped: true, Loc: check.Location{Module: "/opt/app/prog", Offset: "0x10"}}}},
		{Rank: 2, Calls: []report.Call{{Seq: 1, Name: "MPI_Send", Peer: "to 1"}}}}}}
	r.Unused = []string{"x:1: kind=deadlock reason=r"}
	out := validate(t, "every kind", r)
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID              string
				PartialFingerprints map[string]string
				CodeFlows           []struct{ ThreadFlows []any }
			}
		}
	}
	if err := json.Unmarshal(out, &log); err != nil {
		t.Fatal(err)
	}
	flows := 0
	for i, res := range log.Runs[0].Results {
		if res.RuleID != fs[i].Kind || res.PartialFingerprints[report.FingerprintKey] != r.Findings[i].Fingerprint {
			t.Errorf("result %d: rule %s, fingerprints %v", i, res.RuleID, res.PartialFingerprints)
		}
		flows += len(res.CodeFlows)
	}
	if flows == 0 {
		t.Error("no result has a code flow")
	}
	dir := os.Getenv("MPIVET_CORPUS_REPORTS")
	if dir == "" {
		return
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var cr report.Report
		if err := json.Unmarshal(data, &cr); err != nil {
			continue // not a report
		}
		validate(t, file, &cr)
	}
	t.Logf("%d corpus reports validated", len(files))
}

func TestSARIFGolden(t *testing.T) {
	r := report.New([]check.Finding{
		{Kind: "deadlock", Severity: check.Error, Ranks: []int{0, 1}, Interleaving: 2, Message: "2 ranks can never return",
			Locations: []check.Location{{Rank: 0, File: "dl.c", Line: 9, Function: "main", Call: "MPI_Recv", Note: "in the core"}}},
		{Kind: "request-lifecycle", Severity: check.Warning, Ranks: []int{1}, Interleaving: 1, Message: "request freed early",
			Locations: []check.Location{{Rank: 1, Module: "/opt/app/solver", Offset: "0x11c9", Symbol: "main+0x1c", Call: "MPI_Request_free"}}},
	}, "")
	r.Interleavings, r.Ranks, r.MPI = 2, 2, "MPICH 4.0"
	r.Trails = []report.Trail{{Interleaving: 2, Lanes: []report.Lane{
		{Rank: 0, End: "blocked in MPI_Recv", Calls: []report.Call{{Seq: 3, Name: "MPI_Recv", Peer: "from 1", Stopped: true,
			Loc: check.Location{File: "dl.c", Line: 9, Function: "main"}}}},
		{Rank: 1, End: "blocked in MPI_Recv", Calls: []report.Call{{Seq: 3, Name: "MPI_Recv", Peer: "from 0", Stopped: true,
			Loc: check.Location{File: "dl.c", Line: 9, Function: "main"}}}},
		{Rank: 2, End: "finalized"}}}}
	var b bytes.Buffer
	rules := []report.Rule{{ID: "deadlock", Doc: "ranks wait for each other forever\n\nDetails."}}
	if err := report.NewSARIF(&b, rules).Print(r); err != nil {
		t.Fatal(err)
	}
	report.Golden(t, "sarif.golden", b.Bytes())
	validate(t, "golden", r)
}
