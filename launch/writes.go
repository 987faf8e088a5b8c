package launch

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"

	"mpivet/rundir"
	"mpivet/trace"
)

// WriteError is mpivet's failure to write a record of a run: a file it
// writes itself (command.json, layer.conf, decisions, reports, the
// launcher's output), or one the layer or a rank's supervisor writes (a
// log, a state page, an exit record, the copy of a rank's standard error,
// a file's first state). A full file system under the run directory is
// the usual cause. The run's findings cannot be trusted then, and none is
// reported against the program: the verification ends as mpivet's own
// failure (exit status 2).
type WriteError struct {
	Path string
	Err  string // the system's words, e.g. "no space left on device"
}

func (e *WriteError) Error() string {
	return fmt.Sprintf("mpivet could not write its records: %s: %s", e.Path, e.Err)
}

// AsWriteError turns a failure to write path into a WriteError (nil stays
// nil): the system's words without Go's "open PATH:" prefix.
func AsWriteError(path string, err error) error {
	if err == nil {
		return nil
	}
	var we *WriteError
	if errors.As(err, &we) {
		return err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		path, err = pe.Path, pe.Err
	}
	return &WriteError{Path: path, Err: err.Error()}
}

// cannotWrite is the line the layer and the supervisor print when they
// cannot write a record (layer/src/record/log.c, mpivet_cannot_write):
// their standard error reaches mpivet through the launcher, which needs no
// room on the run directory's file system. A launcher may put a tag
// before it.
var cannotWrite = regexp.MustCompile(`mpivet: cannot write its records: (.+): ([^:\n]+?)\r?$`)

// writeWatch sees all that the launcher prints, line by line, and keeps
// the first line saying a record could not be written.
type writeWatch struct {
	mu      sync.Mutex
	partial []byte
	first   *WriteError
}

func (w *writeWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		w.line(w.partial[:i])
		w.partial = w.partial[i+1:]
	}
	if len(w.partial) > 64<<10 { // a line that long is no record's message
		w.partial = w.partial[:0]
	}
	return len(p), nil
}

func (w *writeWatch) line(l []byte) {
	if w.first != nil {
		return
	}
	if m := cannotWrite.FindSubmatch(l); m != nil {
		e := string(m[2]) // strerror's "No space left on device", as Go says it
		if len(e) > 1 && e[0] >= 'A' && e[0] <= 'Z' && e[1] >= 'a' && e[1] <= 'z' {
			e = string(e[0]+'a'-'A') + e[1:]
		}
		w.first = &WriteError{Path: string(m[1]), Err: e}
	}
}

func (w *writeWatch) err() *WriteError {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.first == nil && len(w.partial) > 0 {
		w.line(w.partial)
	}
	return w.first
}

// fileCopy writes what the launcher prints to dir/output.txt; the first
// error writing it is kept, and the rest goes nowhere, so that the
// launcher's output still reaches the user and mpivet (an io.MultiWriter
// would stop at the error, and a launcher blocked on its output would
// hang the run).
type fileCopy struct {
	mu   sync.Mutex
	w    io.Writer
	path string
	fail error
}

func (f *fileCopy) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail == nil {
		if _, err := f.w.Write(p); err != nil {
			f.fail = AsWriteError(f.path, err)
		}
	}
	return len(p), nil
}

func (f *fileCopy) err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fail
}

// outputs are where what the launcher prints goes, besides the user's
// terminal: dir/output.txt, the tail kept for the checks
// (Result.Output), and the watch for records not written.
type outputs struct {
	file   *os.File
	tail   *tail
	writes *writeWatch
	copied *fileCopy
}

func (s *Session) outputs(cmd *exec.Cmd, dir string) (*outputs, error) {
	path := filepath.Join(dir, "output.txt")
	f, err := rundir.Create(path)
	if err != nil {
		return nil, AsWriteError(path, err)
	}
	o := &outputs{file: f, tail: &tail{max: 16 << 10}, writes: &writeWatch{}, copied: &fileCopy{w: f, path: path}}
	cmd.Stdout = io.MultiWriter(s.Opts.Stdout, o.copied, o.writes)
	cmd.Stderr = io.MultiWriter(s.Opts.Stderr, o.tail, o.copied, o.writes)
	return o, nil
}

// err is the first record that could not be written: one the layer or a
// supervisor said, or output.txt.
func (o *outputs) err() error {
	if we := o.writes.err(); we != nil {
		return we
	}
	return o.copied.err()
}

// logWriteError is the first rank whose log ended because its file
// system refused it room (trace.Process.WriteErrno).
func logWriteError(dir string, run *trace.Run) *WriteError {
	if run == nil {
		return nil
	}
	for _, p := range run.Procs {
		if p.WriteErrno != 0 {
			path := filepath.Join(dir, fmt.Sprintf("p.%s.%d.log", p.Host, p.Pid))
			return &WriteError{Path: path, Err: syscall.Errno(p.WriteErrno).Error()}
		}
	}
	return nil
}
