package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra/doc"

	"mpivet/check"
	"mpivet/checks/all"
	"mpivet/internal/refdoc"
)

//go:generate go test -run Reference -update .

var update = flag.Bool("update", false, "write docs/checks.md and docs/cli/ instead of comparing them")

// The reference of the checks, docs/checks.md, is generated from the text
// mpivet explain prints, and is current.
func TestChecksReference(t *testing.T) {
	want := refdoc.Checks(all.Checks)
	path := filepath.Join("..", "..", "docs", "checks.md")
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what the checks' documentation gives: go test ./cmd/mpivet -run Reference -update", path)
	}
	for _, c := range all.Checks {
		if !bytes.Contains(got, []byte("\n## The "+c.Name+" check\n")) {
			t.Errorf("%s has no section for check %s", path, c.Name)
		}
		for _, kind := range c.AllKinds() {
			text, _ := c.Explain(kind)
			if !bytes.Contains(got, []byte("\n### "+kind+"\n\n"+refdoc.KindSection(text)+"\n")) {
				t.Errorf("%s has no section for kind %s of check %s with its explanation", path, kind, c.Name)
			}
			var out bytes.Buffer
			if err := explain(&out, all.Checks, kind); err != nil || !strings.Contains(out.String(), text) {
				t.Errorf("mpivet explain %s does not print the text of its section (%v)", kind, err)
			}
			checkParts(t, c, kind, text)
		}
	}
}

var example = regexp.MustCompile("(?s)\\(\\.\\./(testdata/programs/[^)]+)\\)[^\n]*\n\n```[a-z]*\n(.*?)```")

// checkParts: an explanation says what the finding means, then has an
// example (a corpus program, quoted whole), the report mpivet gives for
// it, and how to fix it.
func checkParts(t *testing.T, c *check.Check, kind, text string) {
	at := 0
	for _, p := range refdoc.Parts {
		i := strings.Index(text, "\n"+p+"\n")
		if i < at {
			t.Errorf("explanation of %s (check %s): no %q section after the previous ones (checks/*/%s.md)", kind, c.Name, p, kind)
			return
		}
		at = i
	}
	body := text[strings.Index(text, "\n"+refdoc.Parts[0]+"\n"):strings.Index(text, "\n"+refdoc.Parts[1]+"\n")]
	m := example.FindStringSubmatch(body)
	if m == nil {
		t.Errorf("explanation of %s: the example is not a link to a corpus program (../testdata/programs/NAME) followed by its code", kind)
		return
	}
	src, err := os.ReadFile(filepath.Join("..", "..", m[1]))
	if err != nil {
		t.Errorf("explanation of %s: %v", kind, err)
	} else if string(src) != m[2] {
		t.Errorf("explanation of %s: the example is not %s as it is", kind, m[1])
	}
}

// The command-line reference, docs/cli/, is what cobra generates from the
// commands, and is current.
func TestCLIReference(t *testing.T) {
	dir := filepath.Join("..", "..", "docs", "cli")
	tmp := t.TempDir()
	var code int
	if err := doc.GenMarkdownTree(rootCmd(&code), tmp); err != nil {
		t.Fatal(err)
	}
	if *update {
		os.RemoveAll(dir)
		if err := os.CopyFS(dir, os.DirFS(tmp)); err != nil {
			t.Fatal(err)
		}
	}
	want, _ := filepath.Glob(filepath.Join(tmp, "*.md"))
	got, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	if len(got) != len(want) {
		t.Errorf("%s has %d pages, the commands give %d: go test ./cmd/mpivet -run Reference -update", dir, len(got), len(want))
	}
	for _, w := range want {
		a, _ := os.ReadFile(w)
		b, err := os.ReadFile(filepath.Join(dir, filepath.Base(w)))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s is not current: go test ./cmd/mpivet -run Reference -update", filepath.Join(dir, filepath.Base(w)))
		}
	}
}

// The command lines the documentation shows use flags the commands have,
// and explain kinds that exist.
func TestDocumentedCommandLines(t *testing.T) {
	var code int
	root := rootCmd(&code)
	pages := []string{filepath.Join("..", "..", "README.md")}
	filepath.WalkDir(filepath.Join("..", "..", "docs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".md") && !strings.Contains(p, string(filepath.Separator)+"cli"+string(filepath.Separator)) {
			pages = append(pages, p)
		}
		return err
	})
	line := regexp.MustCompile(`(?:^|[\s$]|bin/)mpivet (run|replay|dump|checks|explain|exec|mpiexec|suite-report)\b([^#\n]*)`)
	flagRE := regexp.MustCompile(`(?:^|\s)--?([a-z][a-z-]*)`)
	seen := 0
	for _, p := range pages {
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range line.FindAllStringSubmatch(string(text), -1) {
			cmd, _, err := root.Find([]string{m[1]})
			if err != nil {
				t.Fatal(err)
			}
			args := regexp.MustCompile(`'[^']*'|"[^"]*"`).ReplaceAllString(m[2], "") // quoted values
			if i := strings.Index(args, "./"); i >= 0 {                              // flags after the program are the program's
				args = args[:i]
			}
			if i := strings.Index(args, " --"); i >= 0 && strings.HasPrefix(args[i+3:]+" ", " ") { // after --: the command's, the launcher's
				args = args[:i]
			}
			for _, f := range flagRE.FindAllStringSubmatch(args, -1) {
				seen++
				name := f[1]
				known := cmd.Flags().Lookup(name) != nil || name == "help"
				if len(name) == 1 {
					known = cmd.Flags().ShorthandLookup(name) != nil
				}
				if !known {
					t.Errorf("%s: mpivet %s has no flag --%s (%s)", p, m[1], name, strings.TrimSpace(m[0]))
				}
			}
			if m[1] == "explain" {
				if k := strings.Fields(args); len(k) > 0 && k[0] != "KIND" {
					if err := explain(&bytes.Buffer{}, all.Checks, k[0]); err != nil {
						t.Errorf("%s: mpivet explain %s: %v", p, k[0], err)
					}
				}
			}
		}
	}
	if seen < 30 {
		t.Errorf("only %d flags found in the documented command lines", seen)
	}
}
