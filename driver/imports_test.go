package driver

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A check is added by writing its package and registering it in
// checks/all, with no edit elsewhere: the driver and the command line
// import no check but the registry, except the few whose results the
// driver acts on (the reasons are in the package comment).
func TestNoCheckNamed(t *testing.T) {
	allowed := map[string]map[string]bool{
		".":             {"mpivet/checks/all": true, "mpivet/checks/stall": true, "mpivet/checks/zerobuf": true, "mpivet/checks/unreceived": true},
		"../cmd/mpivet": {"mpivet/checks/all": true},
		"../launch":     {},
		"../report":     {},
	}
	for dir, ok := range allowed {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		if len(files) == 0 {
			t.Fatalf("no Go files in %s", dir)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if strings.HasPrefix(path, "mpivet/checks/") && !ok[path] {
					t.Errorf("%s imports %s: a check must need no edit outside its package and checks/all", file, path)
				}
			}
		}
	}
}
