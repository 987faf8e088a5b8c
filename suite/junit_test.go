package suite_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// node is an XML element as CI tools read it.
type node struct {
	Name  string
	Attrs map[string]string
	Kids  []*node
	Text  string
}

func parseXML(data []byte) (*node, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	var stack []*node
	var root *node
	for {
		tok, err := d.Token()
		if err != nil {
			if root != nil && len(stack) == 0 && err.Error() == "EOF" {
				return root, nil
			}
			return nil, err
		}
		switch x := tok.(type) {
		case xml.StartElement:
			n := &node{Name: x.Name.Local, Attrs: map[string]string{}}
			for _, a := range x.Attr {
				n.Attrs[a.Name.Local] = a.Value
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.Kids = append(p.Kids, n)
			} else if root != nil {
				return nil, fmt.Errorf("two root elements")
			} else {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].Text += string(x)
			} else if strings.TrimSpace(string(x)) != "" {
				return nil, fmt.Errorf("text outside the root")
			}
		}
	}
}

// The JUnit schema CI tools accept (Jenkins' junit-10.xsd, which GitLab's
// and Ant's readers agree with for these parts): the attributes each
// element may have (required ones marked !), and its children in their
// order (a regular expression over their names).
var junitRules = map[string]struct {
	attrs []string
	kids  string
}{
	"testsuites": {[]string{"name", "time", "tests", "failures", "errors", "skipped", "disabled"}, `(testsuite )*`},
	"testsuite": {[]string{"name!", "tests!", "failures", "errors", "skipped", "time", "timestamp", "hostname", "id", "package", "disabled"},
		`(properties )?(testcase )*(system-out )?(system-err )?`},
	"properties": {nil, `(property )*`},
	"property":   {[]string{"name!", "value!"}, ``},
	"testcase":   {[]string{"name!", "classname", "time", "assertions", "status"}, `(skipped )?(error )*(failure )*(system-out )*(system-err )*`},
	"skipped":    {[]string{"message"}, ``},
	"error":      {[]string{"message", "type"}, ``},
	"failure":    {[]string{"message", "type"}, ``},
	"system-out": {nil, ``},
	"system-err": {nil, ``},
}

var (
	timeRE  = regexp.MustCompile(`^[0-9]+(\.[0-9]{1,3})?$`)
	stampRE = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$`)
)

// checkJUnit checks n against junitRules, and the counts of each
// testsuite against its testcases; it returns the problems.
func checkJUnit(n *node) []string {
	rule, ok := junitRules[n.Name]
	if !ok {
		return []string{"unknown element " + n.Name}
	}
	var errs []string
	allowed := map[string]bool{}
	for _, a := range rule.attrs {
		name := strings.TrimSuffix(a, "!")
		allowed[name] = true
		if _, has := n.Attrs[name]; !has && name != a {
			errs = append(errs, fmt.Sprintf("<%s> without its %s attribute", n.Name, name))
		}
	}
	for a, v := range n.Attrs {
		if !allowed[a] {
			errs = append(errs, fmt.Sprintf("<%s> has attribute %s", n.Name, a))
		}
		switch a {
		case "tests", "failures", "errors", "skipped", "disabled":
			if _, err := strconv.ParseUint(v, 10, 32); err != nil {
				errs = append(errs, fmt.Sprintf("<%s %s=%q>: not a count", n.Name, a, v))
			}
		case "time":
			if !timeRE.MatchString(v) {
				errs = append(errs, fmt.Sprintf("<%s time=%q>: not seconds", n.Name, v))
			}
		case "timestamp":
			if !stampRE.MatchString(v) {
				errs = append(errs, fmt.Sprintf("<%s timestamp=%q>: not an ISO 8601 date and time without zone", n.Name, v))
			}
		}
	}
	var kids strings.Builder
	for _, k := range n.Kids {
		kids.WriteString(k.Name + " ")
		errs = append(errs, checkJUnit(k)...)
	}
	if !regexp.MustCompile(`^` + rule.kids + `$`).MatchString(kids.String()) {
		errs = append(errs, fmt.Sprintf("<%s> has children %q, not %s", n.Name, kids.String(), rule.kids))
	}
	if n.Name == "testsuite" {
		errs = append(errs, checkCounts(n)...)
	}
	return errs
}

// checkCounts: a testsuite's tests, failures, errors and skipped count its
// testcases, those with a failure, with an error, skipped.
func checkCounts(n *node) []string {
	count := map[string]int{}
	for _, c := range n.Kids {
		if c.Name != "testcase" {
			continue
		}
		count["tests"]++
		seen := map[string]bool{}
		for _, k := range c.Kids {
			seen[k.Name] = true
		}
		for _, k := range []string{"failure", "error", "skipped"} {
			if seen[k] {
				count[k]++
			}
		}
	}
	var errs []string
	for attr, kid := range map[string]string{"tests": "tests", "failures": "failure", "errors": "error", "skipped": "skipped"} {
		if n.Attrs[attr] != strconv.Itoa(count[kid]) {
			errs = append(errs, fmt.Sprintf("<testsuite %s=%q>, but %d", attr, n.Attrs[attr], count[kid]))
		}
	}
	return errs
}

// testcases are the testcases of the one testsuite of a JUnit document,
// by name.
func testcases(t *testing.T, data []byte) (*node, map[string]*node) {
	t.Helper()
	root, err := parseXML(data)
	if err != nil {
		t.Fatalf("not XML: %v\n%s", err, data)
	}
	if errs := checkJUnit(root); len(errs) > 0 {
		t.Fatalf("not JUnit XML:\n%s\n%s", strings.Join(errs, "\n"), data)
	}
	if root.Name != "testsuites" || len(root.Kids) != 1 {
		t.Fatalf("not one testsuite: %s", data)
	}
	cases := map[string]*node{}
	for _, c := range root.Kids[0].Kids {
		if c.Name == "testcase" {
			cases[c.Attrs["name"]] = c
		}
	}
	return root.Kids[0], cases
}

func kid(n *node, name string) []*node {
	var out []*node
	for _, k := range n.Kids {
		if k.Name == name {
			out = append(out, k)
		}
	}
	return out
}

// The checker must be able to fail: documents CI tools would misread are
// refused.
func TestJUnitCheckerRefuses(t *testing.T) {
	for _, doc := range []string{
		`<testsuites><testsuite name="s" tests="1"><testcase name="a"><failure/><skipped/></testcase></testsuite></testsuites>`,
		`<testsuites><testsuite name="s" tests="2"><testcase name="a"/></testsuite></testsuites>`,
		`<testsuites><testsuite tests="1"><testcase name="a"/></testsuite></testsuites>`,
		`<testsuites><testsuite name="s" tests="1"><testcase name="a" time="1s"/></testsuite></testsuites>`,
		`<testsuites><testsuite name="s" tests="1" failures="0"><testcase name="a"><failure/></testcase></testsuite></testsuites>`,
		`<testsuites><testsuite name="s" tests="1" timestamp="2026-11-27T08:00:00Z"><testcase name="a"/></testsuite></testsuites>`,
		`<testsuites><testsuite name="s" tests="1"><testcase name="a"><failed/></testcase></testsuite></testsuites>`,
	} {
		root, err := parseXML([]byte(doc))
		if err == nil && len(checkJUnit(root)) == 0 {
			t.Errorf("accepted: %s", doc)
		}
	}
	root, err := parseXML([]byte(`<testsuites><testsuite name="s" tests="1" failures="1" errors="0" skipped="0" time="1.5" timestamp="2026-11-27T08:00:00">` +
		`<testcase name="a" classname="c" time="1.5"><failure message="m" type="k">text</failure><failure message="m2"/><system-out>x</system-out></testcase></testsuite></testsuites>`))
	if err != nil || len(checkJUnit(root)) > 0 {
		t.Errorf("refused a good document: %v %v", err, checkJUnit(root))
	}
}

// The JUnit XML: one testcase per launch, named by its command line, its
// classname from its working directory; a failure per error finding
// (message: kind and first location; text: the finding's text report),
// skipped for the launch not verified, error for those mpivet failed on,
// warnings and incomplete verdicts in system-out; times from the records.
func TestJUnit(t *testing.T) {
	dir, ls := handMade(t)
	_, out := writeAll(t, dir, ls)
	data, err := os.ReadFile(out.JUnit)
	if err != nil {
		t.Fatal(err)
	}
	ts, cases := testcases(t, data)
	if len(cases) != 7 || ts.Attrs["failures"] != "2" || ts.Attrs["errors"] != "2" || ts.Attrs["skipped"] != "1" ||
		ts.Attrs["time"] != "10.500" || ts.Attrs["timestamp"] != "2026-11-27T08:00:00" {
		t.Fatalf("the testsuite: %v, %d testcases\n%s", ts.Attrs, len(cases), data)
	}
	one := cases["./leak 1"]
	if one == nil || one.Attrs["classname"] != "tests.a" || one.Attrs["time"] != "1.500" || len(kid(one, "failure")) != 1 {
		t.Fatalf("launch 1: %+v\n%s", one, data)
	}
	f := kid(one, "failure")[0]
	if f.Attrs["message"] != "resource-leak: MPI_Type_contiguous at leak.c:12 in main" || f.Attrs["type"] != "resource-leak" ||
		!strings.Contains(f.Text, "error[resource-leak] rank 0\n  a datatype created is never freed\n    rank 0: MPI_Type_contiguous at leak.c:12 in main") {
		t.Errorf("launch 1's failure: %v %q", f.Attrs, f.Text)
	}
	if so := kid(one, "system-out"); len(so) != 1 || !strings.Contains(so[0].Text, "warning[buffer-reuse]") {
		t.Errorf("launch 1's warning is not in its system-out")
	}
	if c := cases[`./leak "two words"`]; c == nil || c.Attrs["classname"] != "tests.b_1" {
		t.Errorf("launch 2: %+v", c)
	}
	if c := cases["mpirun -n 2 hostname"]; c == nil || len(kid(c, "skipped")) != 1 || kid(c, "skipped")[0].Attrs["message"] != "not verified: not an MPI program" {
		t.Errorf("the launch not verified: %+v", c)
	}
	for _, name := range []string{"./broken", "./killed"} {
		c := cases[name]
		if c == nil || len(kid(c, "error")) != 1 || len(kid(c, "failure")) != 0 {
			t.Errorf("%s: %+v", name, c)
		}
	}
	if e := kid(cases["./broken"], "error")[0]; !strings.Contains(e.Text, "mpirun: not found") || !strings.Contains(e.Attrs["message"], "exit status 2") {
		t.Errorf("mpivet's failure: %v %q", e.Attrs, e.Text)
	}
	if c := cases["./slow"]; c == nil || len(c.Kids) != 1 || !strings.Contains(kid(c, "system-out")[0].Text, "incomplete: the time budget") {
		t.Errorf("the incomplete launch: %+v", c)
	}
}
