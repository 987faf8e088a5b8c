package suite_test

import (
	"os"
	"strings"
	"testing"

	"mpivet/internal/junitcheck"
)

func testcases(t *testing.T, data []byte) (*junitcheck.Node, map[string]*junitcheck.Node) {
	t.Helper()
	ts, cases, err := junitcheck.OneSuite(data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	return ts, cases
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
		root, err := junitcheck.Parse([]byte(doc))
		if err == nil && len(junitcheck.Check(root)) == 0 {
			t.Errorf("accepted: %s", doc)
		}
	}
	root, err := junitcheck.Parse([]byte(`<testsuites><testsuite name="s" tests="1" failures="1" errors="0" skipped="0" time="1.5" timestamp="2026-11-27T08:00:00">` +
		`<testcase name="a" classname="c" time="1.5"><failure message="m" type="k">text</failure><failure message="m2"/><system-out>x</system-out></testcase></testsuite></testsuites>`))
	if err != nil || len(junitcheck.Check(root)) > 0 {
		t.Errorf("refused a good document: %v %v", err, junitcheck.Check(root))
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
	if one == nil || one.Attrs["classname"] != "tests.a" || one.Attrs["time"] != "1.500" || len(junitcheck.Kids(one, "failure")) != 1 {
		t.Fatalf("launch 1: %+v\n%s", one, data)
	}
	f := junitcheck.Kids(one, "failure")[0]
	if f.Attrs["message"] != "resource-leak: MPI_Type_contiguous at leak.c:12 in main" || f.Attrs["type"] != "resource-leak" ||
		!strings.Contains(f.Text, "error[resource-leak] rank 0\n  a datatype created is never freed\n    rank 0: MPI_Type_contiguous at leak.c:12 in main") {
		t.Errorf("launch 1's failure: %v %q", f.Attrs, f.Text)
	}
	if so := junitcheck.Kids(one, "system-out"); len(so) != 1 || !strings.Contains(so[0].Text, "warning[buffer-reuse]") {
		t.Errorf("launch 1's warning is not in its system-out")
	}
	if c := cases[`./leak "two words"`]; c == nil || c.Attrs["classname"] != "tests.b_1" {
		t.Errorf("launch 2: %+v", c)
	}
	if c := cases["mpirun -n 2 hostname"]; c == nil || len(junitcheck.Kids(c, "skipped")) != 1 || junitcheck.Kids(c, "skipped")[0].Attrs["message"] != "not verified: not an MPI program" {
		t.Errorf("the launch not verified: %+v", c)
	}
	for _, name := range []string{"./broken", "./killed"} {
		c := cases[name]
		if c == nil || len(junitcheck.Kids(c, "error")) != 1 || len(junitcheck.Kids(c, "failure")) != 0 {
			t.Errorf("%s: %+v", name, c)
		}
	}
	if e := junitcheck.Kids(cases["./broken"], "error")[0]; !strings.Contains(e.Text, "mpirun: not found") || e.Attrs["message"] != "mpivet could not verify the launch (exit status 2)" {
		t.Errorf("mpivet's failure: %v %q", e.Attrs, e.Text)
	}
	if e := junitcheck.Kids(cases["./killed"], "error")[0]; !strings.Contains(e.Text, "no report") || e.Attrs["message"] != "mpivet left no report (exit status 0)" {
		t.Errorf("a launch without its report: %v %q", e.Attrs, e.Text)
	}
	if c := cases["./slow"]; c == nil || len(c.Kids) != 1 || !strings.Contains(junitcheck.Kids(c, "system-out")[0].Text, "incomplete: the time budget") {
		t.Errorf("the incomplete launch: %+v", c)
	}
}
