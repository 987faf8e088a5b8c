package launch

import (
	"errors"
	"os"
	"syscall"
	"testing"
)

// The line the layer and the supervisors print when they cannot write a
// record is found in the launcher's output however it arrives: tagged by
// the launcher, split across writes, among other lines; the first one
// counts, in Go's words for the error.
func TestWriteWatch(t *testing.T) {
	w := &writeWatch{}
	for _, part := range []string{"hello\n[1,0]<stderr>:mpivet: cannot write its rec", "ords: /run/dir/p.h.42.log: No space left on device\n",
		"mpivet: cannot write its records: /run/dir/p.h.43.exit: Disk quota exceeded\n"} {
		w.Write([]byte(part))
	}
	got := w.err()
	if got == nil || got.Path != "/run/dir/p.h.42.log" || got.Err != "no space left on device" {
		t.Fatalf("got %+v", got)
	}
	if msg := got.Error(); msg != "mpivet could not write its records: /run/dir/p.h.42.log: no space left on device" {
		t.Errorf("message %q", msg)
	}
	other := &writeWatch{}
	other.Write([]byte("mpivet: cannot note something\n"))
	if other.err() != nil {
		t.Errorf("another line taken for a record not written: %+v", other.err())
	}
}

// A failure to write a file of mpivet's own names the file and the
// system's words, without Go's "open PATH:".
func TestAsWriteError(t *testing.T) {
	err := AsWriteError("/x/command.json", &os.PathError{Op: "open", Path: "/x/command.json", Err: syscall.ENOSPC})
	var we *WriteError
	if !errors.As(err, &we) || err.Error() != "mpivet could not write its records: /x/command.json: no space left on device" {
		t.Errorf("got %v", err)
	}
	if AsWriteError("/x", nil) != nil {
		t.Error("no error became one")
	}
}
