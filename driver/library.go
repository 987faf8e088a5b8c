package driver

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"mpivet/check"
	"mpivet/explore"
)

// Installed libraries, whose nondeterminism is not explored by default.
//
// A wildcard receive inside PETSc, or a Waitany inside a solver library,
// is the library's own business: its authors chose to let the MPI pick,
// the program cannot change the call, and a finding there is not the
// user's to fix. Exploring it costs as much as exploring the program's
// own nondeterminism (PETSc's two-sided set-up of communication patterns:
// 1,296 orders on 4 ranks;
// those replayed changed no later MPI call). So by default
// (--explore=program) the exploration leaves the events at call sites in
// installed libraries as they happen, and counts their other outcomes in
// the report, with the flag that explores them (--explore=all). The
// events of the program's own call sites are explored as before, and
// every run, those of the library's events included, is checked as
// before: an error a library's events lead to in the runs made is still
// found.
//
// A module is the program's own when it is the executable, or lies under
// the directory of the executable (and of its parent, when that directory
// is a bin/ of a prefix that is not the system's), or under the working
// directory: where a program's own shared libraries are built or
// installed. Every other module is an installed library (the system's,
// an environment module's, a prefix elsewhere). Python lines are always
// the program's (explore.Options.Library).

// libraryRule returns explore.Options.Library for the program (an
// absolute path) run from the working directory cwd: nil, exploring every
// site, with --explore=all.
func libraryRule(explore, program, cwd string) func(string) bool {
	if explore == "all" {
		return nil
	}
	prog := realPath(program)
	var own []string
	for _, d := range []string{filepath.Dir(prog), filepath.Dir(program), realPath(cwd), cwd} {
		if d == "" {
			continue
		}
		own = append(own, d)
		if filepath.Base(d) == "bin" && !systemPrefix(filepath.Dir(d)) {
			own = append(own, filepath.Dir(d))
		}
	}
	return func(module string) bool {
		if module == prog || module == program || !filepath.IsAbs(module) {
			return false // the executable, or no file (the vdso, an anonymous mapping)
		}
		for _, d := range own {
			if under(module, d) {
				return false
			}
		}
		return true
	}
}

// systemPrefix reports whether dir is a prefix the system's packages
// install into: its bin/ says nothing of the program's own libraries.
func systemPrefix(dir string) bool {
	switch dir {
	case "/", "/usr", "/usr/local", "/opt":
		return true
	}
	return false
}

// under reports whether path lies in the tree of dir.
func under(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// realPath is path with its symbolic links resolved, as the mappings of a
// process name their files ("" where it cannot be resolved).
func realPath(path string) string {
	if path == "" {
		return ""
	}
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		return ""
	}
	return p
}

// workingDir is the directory the ranks run in ("" if it cannot be told).
func workingDir() string {
	d, err := os.Getwd()
	if err != nil {
		return ""
	}
	return d
}

// libraryNote says how many outcomes of nondeterministic events in
// installed libraries were not explored, in which modules, and the flag
// that explores them ("" if none).
func libraryNote(stats explore.Stats) string {
	if stats.Library == 0 {
		return ""
	}
	events, sites := 0, 0
	modules := map[string]bool{}
	for _, s := range stats.Sites {
		if !s.InLibrary || s.Library == 0 {
			continue
		}
		sites++
		events += s.Events
		if i := strings.LastIndex(s.Key, "+0x"); i > 0 {
			modules[filepath.Base(s.Key[:i])] = true
		}
	}
	names := make([]string, 0, len(modules))
	for m := range modules {
		names = append(names, m)
	}
	sort.Strings(names)
	return fmt.Sprintf("%d other %s of %d nondeterministic %s at %d call %s in installed libraries (%s) %s not explored: "+
		"those events ran as they happened, and every run was checked; --explore=all explores them too",
		stats.Library, check.Plural(stats.Library, "outcome", "outcomes"), events, check.Plural(events, "event", "events"),
		sites, check.Plural(sites, "site", "sites"), strings.Join(names, ", "), check.Plural(stats.Library, "was", "were"))
}
