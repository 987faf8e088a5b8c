package report

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"mpivet/check"
)

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain\ttext\nline two, ünïcödé": "plain\ttext\nline two, ünïcödé",
		"\x1b[2Jcleared":                 `\x1b[2Jcleared`,
		"\x1b]0;title\x07":               `\x1b]0;title\x07`,
		"fake\rverdict: ok":              `fake\x0dverdict: ok`,
		"csi \u009b2J, raw \x9b":         `csi \u009b2J, raw \x9b`,
		"del\x7f nul\x00":                `del\x7f nul\x00`,
		"a\u202eb":                       `a\u202eb`,
		"dos line\r\nnext\r":             "dos line\r\nnext\\x0d",
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}

// A program cannot drive the user's terminal through the text report:
// what the report quotes from it (a message with its standard error, its
// file names, its path) has its control characters escaped; the only
// escape sequences in the text are the report's own colours. The JSON
// keeps the text as it was, escaped the JSON way.
func TestTextQuotesSafely(t *testing.T) {
	hostile := "\x1b[2J\x1b[H\x1b]0;owned\x07\rverdict: ok \x9b31m"
	r := New([]check.Finding{{Kind: "program-failure", Severity: check.Error, Ranks: []int{0},
		Message:   "rank 0 exited with code 1; its last lines on stderr:\n" + hostile,
		Locations: []check.Location{{Rank: 0, File: "a\x1b[1m.c", Line: 3, Function: "main\x1b[8m"}}}}, "")
	r.Program, r.Interleavings, r.RunDir = "/tmp/\x1b[31mapp", 1, ".mpivet/run-1"
	r.Notes = []string{"note " + hostile}
	sgr := regexp.MustCompile(`\x1b\[[0-9]+m`)
	for _, color := range []bool{false, true} {
		var out bytes.Buffer
		if err := NewText(&out, color).Print(r); err != nil {
			t.Fatal(err)
		}
		text := sgr.ReplaceAllString(out.String(), "")
		if !color {
			text = out.String()
		}
		for i, b := range []byte(text) {
			if (b < 0x20 && b != '\n' && b != '\t') || b == 0x7f || b == 0x9b {
				t.Fatalf("color %v: control byte %#x at %d in the text report:\n%q", color, b, i, text)
			}
		}
		if !strings.Contains(text, `\x1b[2J\x1b[H\x1b]0;owned\x07\x0dverdict: ok \x9b31m`) || !strings.Contains(text, `/tmp/\x1b[31mapp`) ||
			!strings.Contains(text, `a\x1b[1m.c:3`) {
			t.Errorf("color %v: the quoted text is not shown escaped:\n%s", color, text)
		}
	}
	var js bytes.Buffer
	if err := NewJSON(&js).Print(r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `\u001b[2J`) {
		t.Errorf("JSON: %s", js.String())
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || !strings.Contains(back.Findings[0].Message, "\x1b[2J\x1b[H") {
		t.Errorf("JSON read back: %v %+v", err, back.Findings)
	}
}
