package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// Exit is how a rank's process ended, as its supervisor (layer/supervise.c)
// saw it from waitpid. It is the only reliable source for this: a process
// killed by a signal, or returning from main, tells its own layer nothing.
type Exit struct {
	Host      string `json:"host"`
	Pid       int    `json:"pid"`
	Exited    bool   `json:"exited"`     // exited normally, with Code
	Code      int    `json:"code"`       // exit status
	Signal    int    `json:"signal"`     // terminating signal, if any
	Core      bool   `json:"core"`       // a core was dumped
	Forwarded int    `json:"forwarded"`  // last signal the supervisor passed on from the launcher
	ExecError string `json:"exec_error"` // the program could not be started
	TimeNs    int64  `json:"time_ns"`    // when the supervisor saw it end (wall clock)
	// Where the rank's records ended when it had ended, and their CRC32C
	// (the log's bytes before LogEnd); nil if it left no log.
	LogEnd *int64  `json:"log_end,omitempty"`
	LogCRC *uint32 `json:"log_crc32c,omitempty"`
}

// ReadExit reads one exit record; one that is not as the supervisor
// writes it is a DamageError.
func ReadExit(path string) (*Exit, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseExit(path, data)
}

func parseExit(path string, data []byte) (*Exit, error) {
	var x Exit
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&x); err != nil {
		return nil, &DamageError{path, fmt.Sprintf("not an exit record as the supervisor writes it: %v", err)}
	}
	if d.More() {
		return nil, &DamageError{path, "more than one exit record"}
	}
	var keys map[string]json.RawMessage
	json.Unmarshal(data, &keys)
	for _, k := range []string{"host", "pid", "exited", "signal"} {
		if _, ok := keys[k]; !ok {
			return nil, &DamageError{path, fmt.Sprintf("it does not say %q", k)}
		}
	}
	if err := checkExit(path, &x); err != nil {
		return nil, err
	}
	return &x, nil
}
