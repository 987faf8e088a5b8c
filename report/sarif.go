package report

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"mpivet/check"
)

// SARIF prints the report as a SARIF 2.1.0 log, the format code-scanning
// services (GitHub's upload-sarif action) and IDE viewers read: one result
// per finding, with its kind as ruleId, its locations (file and line, or
// module and offset without debug information), a code flow with one
// thread flow per rank (the rank's last calls before the finding, from
// the report's trails) and the fingerprint as a partial fingerprint, so
// that a finding is tracked across commits. Rules carry what mpivet
// explain says of each kind. Suppressed findings are left out (the run's
// properties count them).
type SARIF struct {
	w     io.Writer
	rules []Rule
}

// Rule is what the SARIF log says of a kind of finding: its id (the kind)
// and documentation (a short lowercase title, then details, as the checks
// write it).
type Rule struct {
	ID, Doc string
}

// NewSARIF returns a SARIF printer writing to w, with rules for the kinds
// of findings (more kinds than those found may be given).
func NewSARIF(w io.Writer, rules []Rule) *SARIF { return &SARIF{w, rules} }

// The subset of SARIF 2.1.0 mpivet writes (field names as the standard's).
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool        sarifTool         `json:"tool"`
		Invocations []sarifInvocation `json:"invocations"`
		Results     []sarifResult     `json:"results"`
		Properties  map[string]any    `json:"properties,omitempty"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		InformationURI string      `json:"informationUri,omitempty"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string         `json:"id"`
		Name                 string         `json:"name,omitempty"`
		ShortDescription     *sarifMessage  `json:"shortDescription,omitempty"`
		FullDescription      *sarifMessage  `json:"fullDescription,omitempty"`
		Help                 *sarifMessage  `json:"help,omitempty"`
		DefaultConfiguration map[string]any `json:"defaultConfiguration,omitempty"`
	}
	sarifMessage struct {
		Text string `json:"text"`
	}
	sarifInvocation struct {
		ExecutionSuccessful bool                `json:"executionSuccessful"`
		ExitCode            int                 `json:"exitCode"`
		Notifications       []sarifNotification `json:"toolExecutionNotifications,omitempty"`
	}
	sarifNotification struct {
		Level   string       `json:"level"`
		Message sarifMessage `json:"message"`
	}
	sarifResult struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           int               `json:"ruleIndex"`
		Level               string            `json:"level"`
		Message             sarifMessage      `json:"message"`
		Locations           []sarifLocation   `json:"locations,omitempty"`
		PartialFingerprints map[string]string `json:"partialFingerprints"`
		CodeFlows           []sarifCodeFlow   `json:"codeFlows,omitempty"`
		Properties          map[string]any    `json:"properties,omitempty"`
	}
	sarifLocation struct {
		Physical *sarifPhysical `json:"physicalLocation,omitempty"`
		Logical  []sarifLogical `json:"logicalLocations,omitempty"`
		Message  *sarifMessage  `json:"message,omitempty"`
	}
	sarifPhysical struct {
		Artifact *sarifArtifact `json:"artifactLocation,omitempty"`
		Region   *sarifRegion   `json:"region,omitempty"`
		Address  *sarifAddress  `json:"address,omitempty"`
	}
	sarifArtifact struct {
		URI string `json:"uri"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn,omitempty"`
	}
	sarifAddress struct {
		RelativeAddress *int64 `json:"relativeAddress,omitempty"`
		Name            string `json:"name,omitempty"`
	}
	sarifLogical struct {
		Name string `json:"name"`
		Kind string `json:"kind"`
	}
	sarifCodeFlow struct {
		Message     sarifMessage      `json:"message"`
		ThreadFlows []sarifThreadFlow `json:"threadFlows"`
	}
	sarifThreadFlow struct {
		ID        string                    `json:"id"`
		Message   sarifMessage              `json:"message"`
		Locations []sarifThreadFlowLocation `json:"locations"`
	}
	sarifThreadFlowLocation struct {
		Location   sarifLocation `json:"location"`
		Importance string        `json:"importance,omitempty"`
	}
)

// FingerprintKey names mpivet's fingerprint among a result's partial
// fingerprints (versioned, as code scanning asks).
const FingerprintKey = "mpivetFingerprint/v1"

// Print writes r.
func (s *SARIF) Print(r *Report) error {
	data, err := json.MarshalIndent(s.log(r), "", "  ")
	if err != nil {
		return err
	}
	_, err = s.w.Write(append(data, '\n'))
	return err
}

func (s *SARIF) log(r *Report) sarifLog {
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: "mpivet"}},
		Results: []sarifResult{}}
	index := map[string]int{}
	addRule := func(id, doc string) int {
		if i, ok := index[id]; ok {
			return i
		}
		index[id] = len(run.Tool.Driver.Rules)
		rule := sarifRule{ID: id, Name: id}
		if doc != "" {
			title, _, _ := strings.Cut(doc, "\n")
			rule.ShortDescription = &sarifMessage{title}
			// What the kind means; the example, its report and the fix
			// (the explanation's "#### " parts) are the help's.
			meaning, _, _ := strings.Cut(doc, "\n#### ")
			rule.FullDescription = &sarifMessage{strings.TrimSpace(meaning)}
			rule.Help = &sarifMessage{"mpivet explain " + id + "\n\n" + strings.TrimSpace(doc)}
		}
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, rule)
		return index[id]
	}
	for _, ru := range s.rules {
		addRule(ru.ID, ru.Doc)
	}
	for _, f := range r.Findings {
		res := sarifResult{RuleID: f.Kind, RuleIndex: addRule(f.Kind, ""), Level: sarifLevel(f.Severity),
			Message:             sarifMessage{f.Message},
			PartialFingerprints: map[string]string{FingerprintKey: f.Fingerprint},
			Properties:          map[string]any{"ranks": f.Ranks, "interleaving": f.Interleaving}}
		for _, l := range f.Locations {
			res.Locations = append(res.Locations, sarifLoc(l, fmt.Sprintf("rank %d: %s", l.Rank, noteOf(l))))
		}
		if t := r.TrailOf(f); t != nil {
			if cf := codeFlow(t, f); cf != nil {
				res.CodeFlows = []sarifCodeFlow{*cf}
			}
		}
		run.Results = append(run.Results, res)
	}
	inv := sarifInvocation{ExecutionSuccessful: true, ExitCode: r.ExitCode()}
	for _, u := range r.Unused {
		inv.Notifications = append(inv.Notifications, sarifNotification{Level: "warning", Message: sarifMessage{"unused suppression " + u}})
	}
	if !r.Complete {
		inv.Notifications = append(inv.Notifications, sarifNotification{Level: "note", Message: sarifMessage{"incomplete: " + r.Stopped}})
	}
	run.Invocations = []sarifInvocation{inv}
	run.Properties = map[string]any{"verdict": r.Verdict, "ranks": r.Ranks, "mpi": r.MPI, "coverage": r.Coverage,
		"suppressed": len(r.Suppressed)}
	return sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}}
}

func sarifLevel(s check.Severity) string {
	if s == check.Error {
		return "error"
	}
	return "warning"
}

func noteOf(l check.Location) string {
	s := l.String()
	if l.Note != "" {
		s += " (" + l.Note + ")"
	}
	return s
}

// sarifLoc is a location in SARIF: the file and line when known (a path
// as the compiler was given it, relative to the source tree, which is what
// code scanning resolves; a file URI when absolute), else the module and
// the offset in it; the function as a logical location.
func sarifLoc(l check.Location, msg string) sarifLocation {
	loc := sarifLocation{Message: &sarifMessage{msg}}
	switch {
	case l.File != "":
		uri := (&url.URL{Path: filepath.ToSlash(l.File)}).String()
		if filepath.IsAbs(l.File) {
			uri = (&url.URL{Scheme: "file", Path: filepath.ToSlash(l.File)}).String()
		}
		loc.Physical = &sarifPhysical{Artifact: &sarifArtifact{uri}}
		if l.Line > 0 {
			loc.Physical.Region = &sarifRegion{StartLine: l.Line}
		}
	case l.Module != "":
		loc.Physical = &sarifPhysical{Artifact: &sarifArtifact{(&url.URL{Scheme: "file", Path: l.Module}).String()},
			Address: &sarifAddress{Name: l.Symbol}}
		if off, err := strconv.ParseInt(l.Offset, 0, 64); err == nil {
			loc.Physical.Address.RelativeAddress = &off
		}
	}
	name := l.Function
	if name == "" {
		name, _, _ = strings.Cut(l.Symbol, "+")
	}
	if name != "" {
		loc.Logical = []sarifLogical{{Name: name, Kind: "function"}}
	}
	return loc
}

// codeFlow shows, for each rank of the finding (every rank of the trail if
// the finding names none), its last calls before the finding.
func codeFlow(t *Trail, f check.Finding) *sarifCodeFlow {
	want := map[int]bool{}
	for _, r := range f.Ranks {
		want[r] = true
	}
	cf := &sarifCodeFlow{Message: sarifMessage{fmt.Sprintf("the calls of each rank before the finding, in interleaving %d", t.Interleaving)}}
	for _, lane := range t.Lanes {
		if len(want) > 0 && !want[lane.Rank] || len(lane.Calls) == 0 {
			continue
		}
		tf := sarifThreadFlow{ID: fmt.Sprintf("rank %d", lane.Rank), Message: sarifMessage{fmt.Sprintf("rank %d", lane.Rank)}}
		if lane.End != "" {
			tf.Message.Text += ": " + lane.End
		}
		for _, c := range lane.Calls {
			text := c.Name
			if c.Peer != "" {
				text += " " + c.Peer
			}
			imp := ""
			switch {
			case c.Stopped:
				text += " (the rank stopped here)"
				imp = "essential"
			case c.Forced:
				text += " (a forced wildcard match)"
				imp = "essential"
			}
			l := c.Loc
			l.Rank = lane.Rank
			tf.Locations = append(tf.Locations, sarifThreadFlowLocation{Location: sarifLoc(l, text), Importance: imp})
		}
		cf.ThreadFlows = append(cf.ThreadFlows, tf)
	}
	if len(cf.ThreadFlows) == 0 {
		return nil
	}
	return cf
}

// RulesOf is the rule list for SARIF from the checks: one per kind, with
// what mpivet explain prints for it.
func RulesOf(checks []*check.Check) []Rule {
	var out []Rule
	seen := map[string]bool{}
	for _, c := range checks {
		for _, k := range c.AllKinds() {
			if seen[k] {
				continue
			}
			seen[k] = true
			doc, _ := c.Explain(k)
			out = append(out, Rule{ID: k, Doc: doc})
		}
	}
	return out
}
