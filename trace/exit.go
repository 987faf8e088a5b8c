package trace

import (
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
}

// ReadExit reads one exit record.
func ReadExit(path string) (*Exit, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var x Exit
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &x, nil
}
