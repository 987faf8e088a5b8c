// Package junitcheck checks JUnit XML as the CI tools that read it
// expect it: the elements, attributes and order of children that Jenkins'
// junit-10.xsd allows (GitLab's and Ant's readers agree with it for these
// parts), the formats of counts, times and timestamps, and that each
// testsuite's counts count its testcases. The tests of mpivet's suite
// reports use it.
package junitcheck

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// Node is an XML element as CI tools read it.
type Node struct {
	Name  string
	Attrs map[string]string
	Kids  []*Node
	Text  string
}

// Parse reads an XML document into its tree of elements.
func Parse(data []byte) (*Node, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	var stack []*Node
	var root *Node
	for {
		tok, err := d.Token()
		if err != nil {
			if root != nil && len(stack) == 0 && errors.Is(err, io.EOF) {
				return root, nil
			}
			return nil, err
		}
		switch x := tok.(type) {
		case xml.StartElement:
			n := &Node{Name: x.Name.Local, Attrs: map[string]string{}}
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

// Check checks n against the rules of the schema, and the counts of each
// testsuite against its testcases; it returns the problems.
func Check(n *Node) []string {
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
		errs = append(errs, Check(k)...)
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
func checkCounts(n *Node) []string {
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

// Kids are n's children named name.
func Kids(n *Node, name string) []*Node {
	var out []*Node
	for _, k := range n.Kids {
		if k.Name == name {
			out = append(out, k)
		}
	}
	return out
}

// OneSuite checks a JUnit document of one testsuite in a testsuites
// element, and returns the testsuite and its testcases by name.
func OneSuite(data []byte) (*Node, map[string]*Node, error) {
	root, err := Parse(data)
	if err != nil {
		return nil, nil, fmt.Errorf("not XML: %v", err)
	}
	if errs := Check(root); len(errs) > 0 {
		return nil, nil, fmt.Errorf("not JUnit XML:\n%s", strings.Join(errs, "\n"))
	}
	if root.Name != "testsuites" || len(root.Kids) != 1 {
		return nil, nil, fmt.Errorf("not one testsuite in a testsuites element")
	}
	cases := map[string]*Node{}
	for _, c := range Kids(root.Kids[0], "testcase") {
		cases[c.Attrs["name"]] = c
	}
	return root.Kids[0], cases, nil
}
