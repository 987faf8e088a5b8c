package trace

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// A DamageError says that a file of a run directory is not as mpivet or
// the rank's supervisor wrote it: cut short, changed since, or not what it
// should be. Reading such a run would give another run than the one
// recorded (fewer calls, other matches), so it is refused, never read.
type DamageError struct {
	File string
	What string
}

func (e *DamageError) Error() string { return fmt.Sprintf("%s is damaged: %s", e.File, e.What) }

// IsDamaged reports whether err says a file is damaged.
func IsDamaged(err error) bool {
	var d *DamageError
	return errors.As(err, &d)
}

// checkLog checks the log of p against its exit record: the supervisor
// wrote there where the records ended and their CRC32C once the rank had
// ended (layer/src/supervisor/logsum.c). A log whose reading was stopped
// (Cut) or without such an exit record is taken as it is.
func (p *Process) checkLog() error {
	x := p.Exit
	if x == nil || x.LogEnd == nil || p.Cut {
		return nil
	}
	switch {
	case p.notLog:
		return &DamageError{p.File, fmt.Sprintf("it does not start with the log's magic (MPIVET01), but the rank's exit record says it held %d bytes of records", *x.LogEnd)}
	case p.End < *x.LogEnd:
		return &DamageError{p.File, fmt.Sprintf("its records end at byte %d, but the rank's exit record says they end at byte %d (cut short, or a record's header changed)", p.End, *x.LogEnd)}
	case p.End > *x.LogEnd:
		return &DamageError{p.File, fmt.Sprintf("its records go on past byte %d, where the rank's exit record says they end (written to since the rank ended)", *x.LogEnd)}
	case x.LogCRC != nil && p.Sum != *x.LogCRC:
		return &DamageError{p.File, fmt.Sprintf("the CRC32C of its records is %08x, the rank's exit record says %08x (changed since the rank ended)", p.Sum, *x.LogCRC)}
	}
	return nil
}

// checkExit checks an exit record against its file's name (p.HOST.PID.exit)
// and itself.
func checkExit(path string, x *Exit) error {
	name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "p."), ".exit")
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		if pid, err := strconv.Atoi(name[i+1:]); err == nil && (pid != x.Pid || name[:i] != x.Host) {
			return &DamageError{path, fmt.Sprintf("it is about process %d on %q, its name about process %d on %q", x.Pid, x.Host, pid, name[:i])}
		}
	}
	switch {
	case x.Exited && x.Signal != 0:
		return &DamageError{path, fmt.Sprintf("it says the process both exited (code %d) and was killed by signal %d", x.Code, x.Signal)}
	case x.Code < 0 || x.Code > 255 || x.Signal < 0 || x.Signal > 128:
		return &DamageError{path, fmt.Sprintf("exit code %d or signal %d out of range", x.Code, x.Signal)}
	case x.LogEnd != nil && (*x.LogEnd < 8 || *x.LogEnd%8 != 0):
		return &DamageError{path, fmt.Sprintf("log_end %d is no end of records", *x.LogEnd)}
	}
	return nil
}
