package report

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"mpivet/check"
)

// DefaultSuppressions is the suppression file mpivet reads from the
// working directory when --suppressions does not name one.
const DefaultSuppressions = ".mpivet-suppressions"

// Suppression silences the findings it matches, as valgrind's suppression
// files and the sanitizers' do: known problems, or false alarms, that a
// team chose not to see again. One per line of the file:
//
//	# comment
//	kind=buffer-reuse file=halo.c:42 reason="fixed upstream in v2"
//	kind=deadlock function=exchange reason="ticket 12"
//	fingerprint=3f1c2a9e0b7d4c55 reason="by design"
//
// Fields are key=value, a value with spaces in double quotes (Go's
// escapes). kind is required unless fingerprint is given, and reason
// always is; file (FILE or FILE:LINE, matched against the base name or
// full path of the finding's locations), function (a location's
// function, or its ELF symbol without the offset) and fingerprint narrow
// it. kind=* matches every kind. All the fields given must match.
type Suppression struct {
	Kind, File, Function, Fingerprint, Reason string
	Line                                      int
	Where                                     string // FILE:LINE of the suppression itself
	used                                      int
}

// Suppressed is a finding a suppression silenced.
type Suppressed struct {
	Kind        string `json:"kind"`
	Fingerprint string `json:"fingerprint"`
	Ranks       []int  `json:"ranks"`
	Severity    string `json:"severity"`
	By          string `json:"by"` // the suppression's FILE:LINE
	Reason      string `json:"reason"`
}

// ReadSuppressions reads a suppression file (see Suppression).
func ReadSuppressions(path string) ([]*Suppression, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []*Suppression
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, err := parseSuppression(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		s.Where = fmt.Sprintf("%s:%d", path, n)
		out = append(out, s)
	}
	return out, sc.Err()
}

func parseSuppression(line string) (*Suppression, error) {
	s := &Suppression{}
	for rest := line; ; {
		rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
		if rest == "" {
			break
		}
		eq := strings.IndexByte(rest, '=')
		if eq <= 0 {
			return nil, fmt.Errorf("expected key=value at %q", rest)
		}
		key, val := rest[:eq], rest[eq+1:]
		if strings.HasPrefix(val, `"`) {
			q, err := strconv.QuotedPrefix(val)
			if err != nil {
				return nil, fmt.Errorf("%s: unterminated quoted value", key)
			}
			rest = val[len(q):]
			val, _ = strconv.Unquote(q)
		} else {
			end := strings.IndexFunc(val, unicode.IsSpace)
			if end < 0 {
				end = len(val)
			}
			val, rest = val[:end], val[end:]
		}
		switch key {
		case "kind":
			s.Kind = val
		case "file":
			s.File = val
			if i := strings.LastIndexByte(val, ':'); i > 0 {
				if n, err := strconv.Atoi(val[i+1:]); err == nil {
					s.File, s.Line = val[:i], n
				}
			}
		case "function":
			s.Function = val
		case "fingerprint":
			s.Fingerprint = val
		case "reason":
			s.Reason = val
		default:
			return nil, fmt.Errorf("unknown key %q (kind, file, function, fingerprint, reason)", key)
		}
	}
	if s.Kind == "" && s.Fingerprint == "" {
		return nil, fmt.Errorf("a suppression needs a kind or a fingerprint")
	}
	if s.Reason == "" {
		return nil, fmt.Errorf("a suppression needs a reason")
	}
	return s, nil
}

// Matches reports whether s silences f.
func (s *Suppression) Matches(f check.Finding) bool {
	if s.Kind != "" && s.Kind != "*" && s.Kind != f.Kind {
		return false
	}
	if s.Fingerprint != "" && s.Fingerprint != f.Fingerprint {
		return false
	}
	if s.File == "" && s.Function == "" {
		return true
	}
	for _, l := range f.Locations {
		if s.File != "" && !sameFile(s.File, l) {
			continue
		}
		if s.Line != 0 && s.Line != l.Line {
			continue
		}
		if s.Function != "" && s.Function != l.Function && s.Function != strings.SplitN(l.Symbol, "+", 2)[0] {
			continue
		}
		return true
	}
	return false
}

func sameFile(name string, l check.Location) bool {
	if name == l.File || name == l.Path {
		return true
	}
	return l.File != "" && filepath.Base(name) == name && name == filepath.Base(l.File)
}

// Suppress moves the findings that ss match out of r.Findings into
// r.Suppressed, names the suppressions that matched nothing in r.Unused,
// and sets the verdict again from what is left.
func (r *Report) Suppress(ss []*Suppression) {
	var keep []check.Finding
	for _, f := range r.Findings {
		var by *Suppression
		for _, s := range ss {
			if s.Matches(f) {
				by = s
				break
			}
		}
		if by == nil {
			keep = append(keep, f)
			continue
		}
		by.used++
		r.Suppressed = append(r.Suppressed, Suppressed{Kind: f.Kind, Fingerprint: f.Fingerprint, Ranks: f.Ranks,
			Severity: string(f.Severity), By: by.Where, Reason: by.Reason})
	}
	if keep == nil {
		keep = []check.Finding{}
	}
	r.Findings = keep
	for _, s := range ss {
		if s.used == 0 {
			r.Unused = append(r.Unused, s.Where+": "+s.String())
		}
	}
	r.verdict()
}

// String is the suppression as written in a file.
func (s *Suppression) String() string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			if strings.ContainsAny(v, " \t\"") {
				v = strconv.Quote(v)
			}
			parts = append(parts, k+"="+v)
		}
	}
	add("kind", s.Kind)
	file := s.File
	if s.Line != 0 {
		file += ":" + strconv.Itoa(s.Line)
	}
	add("file", file)
	add("function", s.Function)
	add("fingerprint", s.Fingerprint)
	add("reason", s.Reason)
	return strings.Join(parts, " ")
}
