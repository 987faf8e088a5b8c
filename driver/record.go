package driver

import (
	"encoding/json"
	"fmt"
	"mpivet/launch"
	"os"
	"path/filepath"
	"strings"

	"mpivet/rundir"
	"mpivet/trace"
)

// commandFile is the command record: what a run directory remembers of
// the options that made it (the options with a record key), so that
// mpivet replay can run its interleavings again.
const commandFile = "command.json"

// saveCommand writes o's command record in dir. The program is recorded
// by its absolute path when it was given as a path, so that a replay
// from another directory finds it.
func saveCommand(dir string, o Options) error {
	if abs, err := filepath.Abs(o.Program); err == nil && strings.Contains(o.Program, "/") {
		o.Program = abs
	}
	rec := map[string]any{}
	for _, opt := range options {
		if opt.record != "" {
			rec[opt.record] = opt.field(&o)
		}
	}
	if sum, err := binarySHA256(o.Program); err == nil {
		rec[programSHA256] = sum // (a replay checks it: identity.go)
	}
	data, _ := json.MarshalIndent(rec, "", "  ")
	if err := rundir.WriteFile(filepath.Join(dir, commandFile), append(data, '\n')); err != nil {
		return launch.AsWriteError(filepath.Join(dir, commandFile), err)
	}
	return nil
}

// loadCommand reads the command record of run directory dir into o: the
// recorded options replace o's, the others are left as they are.
func loadCommand(dir string, o *Options) error {
	data, err := os.ReadFile(filepath.Join(dir, commandFile))
	if err != nil {
		return fmt.Errorf("%s is not an mpivet run directory (no %s)", dir, commandFile)
	}
	return parseCommand(filepath.Join(dir, commandFile), data, o)
}

// parseCommand reads the command record at path (its contents data) into
// o; one that is not JSON, or whose values are not of their options'
// types, is a trace.DamageError.
func parseCommand(path string, data []byte, o *Options) error {
	var rec map[string]json.RawMessage
	if err := json.Unmarshal(data, &rec); err != nil {
		return &trace.DamageError{File: path, What: fmt.Sprintf("not a command record: %v", err)}
	}
	for _, opt := range options {
		if v, ok := rec[opt.record]; ok && opt.record != "" {
			if err := json.Unmarshal(v, opt.field(o)); err != nil {
				return &trace.DamageError{File: path, What: fmt.Sprintf("%s: %v", opt.record, err)}
			}
		}
	}
	return nil
}
