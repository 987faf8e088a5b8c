package suite

import (
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"strings"

	"mpivet/report"
)

// The parts of a SARIF log the merge reads and writes; the rest of each
// launch's log (rules' texts, results' locations and code flows) is kept
// as report.SARIF wrote it.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool        sarifTool        `json:"tool"`
		Invocations []map[string]any `json:"invocations"`
		Results     []map[string]any `json:"results"`
		Properties  map[string]any   `json:"properties,omitempty"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string           `json:"name"`
		InformationURI string           `json:"informationUri,omitempty"`
		Rules          []map[string]any `json:"rules"`
	}
)

// PrintSARIF writes one SARIF 2.1.0 log for the suite: one run, the rules
// of every kind (rules, and kinds found that rules lacks), one invocation
// per verified launch, and each finding once however many launches found it
// (by its fingerprint: report.Fingerprint), with the launches it came from
// in its properties ("launches", their indices).
func (s *Suite) PrintSARIF(w io.Writer, rules []report.Rule) error {
	merged := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: "mpivet"}}, Invocations: []map[string]any{},
		Results: []map[string]any{}}
	ruleIndex := map[string]int{}
	addRules := func(rs []map[string]any) {
		for _, r := range rs {
			id, _ := r["id"].(string)
			if _, ok := ruleIndex[id]; !ok {
				ruleIndex[id] = len(merged.Tool.Driver.Rules)
				merged.Tool.Driver.Rules = append(merged.Tool.Driver.Rules, r)
			}
		}
	}
	byFingerprint := map[string]map[string]any{}
	for i := range s.Results {
		r := &s.Results[i]
		inv := r.sarifInvocation()
		if inv == nil {
			continue
		}
		merged.Invocations = append(merged.Invocations, inv)
		if r.Report == nil {
			continue
		}
		run, err := launchSARIF(r.Report, rules)
		if err != nil {
			return err
		}
		addRules(run.Tool.Driver.Rules)
		for _, res := range run.Results {
			fp := fingerprintOf(res)
			if first, ok := byFingerprint[fp]; ok && fp != "" {
				props := first["properties"].(map[string]any)
				props["launches"] = append(props["launches"].([]int), r.Index)
				continue
			}
			props, _ := res["properties"].(map[string]any)
			if props == nil {
				props = map[string]any{}
				res["properties"] = props
			}
			props["launches"] = []int{r.Index}
			id, _ := res["ruleId"].(string)
			res["ruleIndex"] = ruleIndex[id]
			byFingerprint[fp] = res
			merged.Results = append(merged.Results, res)
		}
	}
	merged.Properties = map[string]any{"suite": s.Dir, "verdict": s.Verdict, "totals": s.Totals}
	log := sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{merged}}
	data, err := json.MarshalIndent(log, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// launchSARIF is the SARIF run of one launch's report, as mpivet run
// --sarif writes it.
func launchSARIF(r *report.Report, rules []report.Rule) (*sarifRun, error) {
	var b bytes.Buffer
	if err := report.NewSARIF(&b, rules).Print(r); err != nil {
		return nil, err
	}
	var log sarifLog
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		return nil, err
	}
	return &log.Runs[0], nil
}

func fingerprintOf(res map[string]any) string {
	fps, _ := res["partialFingerprints"].(map[string]any)
	fp, _ := fps[report.FingerprintKey].(string)
	return fp
}

// sarifInvocation is the launch's invocation of mpivet (nil for a launch
// not verified): its command line, working directory, exit status and
// outcome.
func (r *Result) sarifInvocation() map[string]any {
	if !r.Verified {
		return nil
	}
	inv := map[string]any{
		"executionSuccessful": r.Outcome != Failed,
		"exitCode":            r.MpivetStatus,
		"commandLine":         strings.Join(r.Command, " "),
		"properties":          map[string]any{"launch": r.Index, "outcome": r.Outcome},
	}
	if r.WorkDir != "" {
		inv["workingDirectory"] = map[string]any{"uri": (&url.URL{Scheme: "file", Path: r.WorkDir}).String()}
	}
	if r.Outcome == Failed {
		inv["toolExecutionNotifications"] = []map[string]any{{"level": "error",
			"message": map[string]any{"text": r.Problem}}}
	}
	return inv
}
