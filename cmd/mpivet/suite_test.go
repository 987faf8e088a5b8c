package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mpivet suite-report refuses what is not a suite directory, a launch
// record it cannot read and a report file it cannot write, with exit
// status 2 and a message saying which; a suite without launches is ok.
func TestSuiteReportInput(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	os.WriteFile(file, nil, 0o644)
	bad := filepath.Join(tmp, "bad")
	os.MkdirAll(filepath.Join(bad, "launches", "0001"), 0o755)
	os.WriteFile(filepath.Join(bad, "launches", "0001", "launch.json"), []byte("{"), 0o644)
	empty := filepath.Join(tmp, "empty")
	os.Mkdir(empty, 0o755)
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{filepath.Join(tmp, "missing")}, exitFailure, "no suite directory " + filepath.Join(tmp, "missing")},
		{[]string{file}, exitFailure, file + " is not a suite directory"},
		{[]string{bad}, exitFailure, "cannot read the suite's launches: " + filepath.Join(bad, "launches", "0001", "launch.json")},
		{[]string{"--junit", filepath.Join(tmp, "no", "j.xml"), empty}, exitFailure, "--junit " + filepath.Join(tmp, "no", "j.xml") + ": no directory"},
		{[]string{"--junit", filepath.Join(tmp, "j.xml"), empty}, exitOK, ""},
	} {
		code := -1
		cmd := rootCmd(&code)
		cmd.SetArgs(append([]string{"suite-report"}, c.args...))
		var stdout bytes.Buffer
		cmd.SetOut(&stdout)
		err := cmd.Execute()
		if code != c.code || (c.msg == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.msg) {
			t.Errorf("suite-report %v: exit %d, %v; want %d, %q", c.args, code, err, c.code, c.msg)
		}
		if err == nil && !strings.Contains(stdout.String(), ", 0 launches ==") {
			t.Errorf("suite-report %v: the summary: %s", c.args, stdout.String())
		}
	}
	if b, err := os.ReadFile(filepath.Join(tmp, "j.xml")); err != nil || !bytes.Contains(b, []byte(`tests="0"`)) {
		t.Errorf("the JUnit XML of a suite without launches: %v %s", err, b)
	}
}
