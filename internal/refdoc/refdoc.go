// Package refdoc writes the reference pages of docs/ that are generated
// from the code, and checks the links between the Markdown pages:
//
//   - Checks renders docs/checks.md from the checks' own documentation
//     (check.Check Doc and KindDocs, read from each check package's KIND.md
//     files), the text mpivet explain prints;
//   - the command-line reference, docs/cli/, is cobra's Markdown of the
//     commands themselves (cmd/mpivet's tests write and compare it);
//   - Anchors and Links read Markdown as GitHub renders it, for the test
//     that every relative link and #anchor between the pages resolves.
//
// Regenerate both references with
//
//	go test ./cmd/mpivet -run Reference -update
package refdoc

import (
	"bytes"
	"fmt"
	"strings"

	"mpivet/check"
)

// Parts are the sections every kind's explanation has, in this order.
var Parts = []string{"#### Example", "#### Report", "#### Fix"}

// Checks renders the reference of the checks: a table of them, then one
// section per check and, under it, one per kind it reports, whose text is
// what mpivet explain prints for that kind.
func Checks(checks []*check.Check) []byte {
	var b bytes.Buffer
	b.WriteString(checksIntro)
	ids := newAnchors()
	kindAnchor := map[*check.Check]map[string]string{}
	checkAnchor := map[*check.Check]string{}
	// Headings in page order, so that repeated ones get GitHub's suffixes.
	for _, c := range checks {
		checkAnchor[c] = ids.add(checkHeading(c))
		kindAnchor[c] = map[string]string{}
		for _, k := range c.AllKinds() {
			kindAnchor[c][k] = ids.add(k)
		}
	}
	b.WriteString("| check | what it looks for | kinds of finding |\n|---|---|---|\n")
	for _, c := range checks {
		fmt.Fprintf(&b, "| [%s](#%s) | %s | %s |\n", c.Name, checkAnchor[c], title(c.Doc), kindLinks(c, kindAnchor[c]))
	}
	for _, c := range checks {
		fmt.Fprintf(&b, "\n## %s\n\n", checkHeading(c))
		if reportsOwnName(c) {
			fmt.Fprintf(&b, "%s. Kinds of finding: %s.\n", capital(title(c.Doc)), kindLinks(c, kindAnchor[c]))
		} else {
			fmt.Fprintf(&b, "Kinds of finding: %s.\n\n%s\n", kindLinks(c, kindAnchor[c]), KindSection(c.Doc))
		}
		for _, k := range c.AllKinds() {
			text, _ := c.Explain(k)
			fmt.Fprintf(&b, "\n### %s\n\n%s\n", k, KindSection(text))
		}
	}
	return b.Bytes()
}

const checksIntro = `# Checks and findings

<!-- Generated from the checks' documentation (checks/*/KIND.md) by
     go test ./cmd/mpivet -run Reference -update; do not edit. -->

mpivet runs every check below on every interleaving it explores. Each
finding has a kind; ` + "`mpivet explain KIND`" + ` prints the section of that kind
from the same text, and ` + "`mpivet checks`" + ` lists the checks. Every example is a
program of the test corpus (testdata/programs), which runs it under Open MPI
and MPICH and expects the findings shown; the reports were printed by
` + "`mpivet run`" + ` under Open MPI 4.1.

`

// KindSection is how an explanation appears in the reference: its title
// line in bold, then the rest as written.
func KindSection(text string) string {
	t, rest, _ := strings.Cut(text, "\n")
	return "**" + strings.TrimSpace(t) + "**\n" + rest
}

func checkHeading(c *check.Check) string { return "The " + c.Name + " check" }

func kindLinks(c *check.Check, anchors map[string]string) string {
	var l []string
	for _, k := range c.AllKinds() {
		l = append(l, fmt.Sprintf("[%s](#%s)", k, anchors[k]))
	}
	return strings.Join(l, ", ")
}

func title(doc string) string { t, _, _ := strings.Cut(doc, "\n"); return strings.TrimSpace(t) }

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func reportsOwnName(c *check.Check) bool {
	for _, k := range c.AllKinds() {
		if k == c.Name {
			return true
		}
	}
	return false
}
