package driver

import (
	"fmt"
	"path/filepath"
	"strings"

	"mpivet/check"
	"mpivet/filestate"
)

// Replays start from the files the first run started from (--files=restore,
// the default). Programs refuse to overwrite their results (a file created
// with O_EXCL, an output directory that must not exist) or read what an
// earlier run wrote (a log they append to, a restart file that makes them
// resume): a replay that found the first run's files would not repeat it.
// The ranks keep each file's state before they first create, change or
// remove it (layer/src/files, which says why this and not an overlay of
// the working directory); between runs, with no rank running, the driver
// brings every such file back (filestate.Restore). The first run's own
// results are moved aside after it and put back at the end, so that the
// files are as one run of the program leaves them: what a user who ran it
// natively would have, not what the last replay wrote.
//
// Replays run at once (--jobs) would share the files while they run: when
// the first run touched files, replays run one at a time. When it touched
// none, replays run at once as usual, and a file only a replay touches is
// restored once they are over.

// filesDir is the store's directory in the run directory.
const filesDir = "files"

// startFiles creates the verification's store, unless --files=off; a
// store that cannot be created leaves the files alone, with a note.
func (x *exploration) startFiles() {
	if x.o.Files == "off" {
		return
	}
	s, err := filestate.New(filepath.Join(x.dir, filesDir))
	if err != nil {
		x.notes = append(x.notes, "files not restored between replays: "+err.Error())
		return
	}
	x.files = s
}

// beforeRun brings the files back before run n, run alone: what replays
// run at once left, and the claims of ranks a limit stopped.
func (x *exploration) beforeRun(n int) error {
	if x.files == nil || n < 1 {
		return nil
	}
	r, err := x.files.Restore()
	if err == nil {
		x.fileFailures(r)
	}
	return err
}

// afterRun brings the files back after run n, run alone (n -1, a replay
// run ahead, beside others, is restored by the next run alone or at the
// end), and keeps what the first run left. It remembers what run n
// changed, for a replay that diverged.
func (x *exploration) afterRun(n int) error {
	if x.files == nil || n < 1 {
		return nil
	}
	if n == 1 {
		left, err := x.files.KeepFirst()
		if err != nil {
			return err
		}
		x.serial = left
	}
	r, err := x.files.Restore()
	if err != nil {
		return err
	}
	x.fileFailures(r)
	x.changed = r.Changed
	return nil
}

// fileFailures keeps the first files that could not be restored, for the
// note.
func (x *exploration) fileFailures(r filestate.Restored) {
	for _, f := range r.Failed {
		if len(x.fileFailed) < 3 {
			x.fileFailed = append(x.fileFailed, f)
		}
	}
}

// endFiles leaves the files as the first run left them, and notes what
// mpivet did with them. Once; every way out of verify calls it.
func (x *exploration) endFiles() {
	if x.files == nil || x.filesEnded {
		return
	}
	x.filesEnded = true
	x.serialNote()
	r, err := x.files.Restore()
	if err == nil {
		x.fileFailures(r)
		err = x.files.PutFirstBack()
	}
	es, _ := x.files.Entries()
	var untracked, elsewhere []string
	for _, e := range es {
		if !x.files.Reachable(e) {
			elsewhere = append(elsewhere, e.Host+":"+e.Path)
		} else if e.Kind == filestate.Untracked {
			untracked = append(untracked, e.Path)
		}
	}
	if len(elsewhere) > 0 {
		x.notes = append(x.notes, "files on other hosts' own file systems, which mpivet did not restore (only those on the run directory's "+
			"file system and on its own host): "+firstFew(elsewhere))
	}
	if paths := x.serial; len(paths) > 0 {
		x.notes = append(x.notes, fmt.Sprintf("files: the first run created, changed or removed %d %s (%s); every replay started from the files "+
			"as they were before it, and %s as the first run left %s", len(paths), check.Plural(len(paths), "file", "files"),
			firstFew(paths), check.Plural(len(paths), "it is", "they are"), check.Plural(len(paths), "it", "them")))
	}
	if len(untracked) > 0 {
		x.notes = append(x.notes, fmt.Sprintf("files mpivet left alone (a directory renamed whole, a file it could not copy): %s", firstFew(untracked)))
	}
	if err != nil {
		x.fileFailed = append(x.fileFailed, err.Error())
	}
	if len(x.fileFailed) > 0 {
		x.notes = append(x.notes, "files mpivet could not restore: "+strings.Join(x.fileFailed, "; "))
	}
}

// divergedFiles says, for a replay that diverged, what mpivet did with the
// files: which it restored after the replay (those the replay created,
// changed or removed), or that it did not.
func (x *exploration) divergedFiles() string {
	switch {
	case x.files == nil:
		return " (files not restored: --files=off)"
	case x.jobs() > 1:
		return " (replays ran at once, the first run having written no file: what a replay wrote was restored once they were over)"
	case len(x.changed) > 0:
		return fmt.Sprintf(" (the files it wrote, restored before every replay: %s)", firstFew(x.changed))
	}
	return " (it created, changed and removed no file mpivet follows)"
}

// divergedHint explains replays that diverged despite restored files.
func (x *exploration) divergedHint() string {
	if x.files == nil {
		return "for reasons outside MPI (files an earlier run left, clocks, process ids, random seeds)"
	}
	return "for reasons outside MPI and outside the files mpivet restores before every replay (clocks, process ids, random seeds, " +
		"files written by the program's child processes or under another name)"
}

// jobs is the number of replays to run at once: one when the first run
// touched files.
func (x *exploration) jobs() int {
	if x.serial != nil {
		return 1
	}
	return jobs(x.o, x.sess)
}

// serialNote says why replays ran one at a time, when they would have
// run at once.
func (x *exploration) serialNote() {
	if x.serial != nil && jobs(x.o, x.sess) > 1 {
		x.notes = append(x.notes, fmt.Sprintf("replays ran one at a time, not %d at once: the first run wrote files (%s), which every replay must find "+
			"as they were before it", jobs(x.o, x.sess), firstFew(x.serial)))
	}
}

// firstFew names the first three paths, and how many more there are.
func firstFew(paths []string) string {
	if len(paths) <= 3 {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(paths[:3], ", "), len(paths)-3)
}
