package driver

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"mpivet/explore"
	"mpivet/rundir"
	"mpivet/trace"
)

// A witness is one interleaving of a run, exported so that it can be
// replayed elsewhere with the same binary (mpivet replay --export DIR, then
// mpivet replay DIR): a run directory of its own with the command record
// (command.json: program, arguments, ranks, buffering and the other
// recorded options), the decisions that force every wildcard event to its
// outcome (decisions.complete), the buffering of the zero-buffering run if
// it is one (buffering), and witness.json, which says where it comes from
// and the SHA-256 of the binary it needs: replaying it on another binary
// would force decisions on calls that are not the same.
type witness struct {
	From         string `json:"from"` // run directory
	Interleaving int    `json:"interleaving"`
	Program      string `json:"program"`
	SHA256       string `json:"sha256"`
	Decisions    int    `json:"decisions"`
}

const witnessFile = "witness.json"

// Export writes interleaving r.Interleaving of the run in r.Dir as a
// witness in the directory to (new or empty), without running it, and
// returns how many matches it forces. mpivet replay runs the witness with
// the same binary, there or on another machine (ReplayOptions.Program
// names it where its path differs).
func Export(r ReplayOptions, to string) (int, error) {
	o := Defaults()
	if err := loadCommand(r.Dir, &o); err != nil {
		return 0, err
	}
	if err := checkRecordedBinary(r.Dir, o.Program, nil); err != nil {
		return 0, err
	}
	ds, err := replayDecisions(r.Dir, r.Interleaving, o.NP)
	if err != nil {
		return 0, err
	}
	b, _ := os.ReadFile(filepath.Join(interleavingDir(r.Dir, r.Interleaving), bufferingFile))
	if err := exportWitness(to, r.Dir, r.Interleaving, o, ds, strings.TrimSpace(string(b))); err != nil {
		return 0, err
	}
	return len(ds), nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// exportWitness writes interleaving n of run directory from, with
// options o (from its command record), decisions ds and the buffering of
// its run (empty: the command's), as a witness in dir.
func exportWitness(dir, from string, n int, o Options, ds []explore.Decision, buffering string) error {
	sum, err := fileSHA256(o.Program)
	if err != nil {
		return fmt.Errorf("cannot read the program: %v", err)
	}
	if err := rundir.Prepare(dir); err != nil {
		return err
	}
	if ents, _ := os.ReadDir(dir); len(ents) > 0 {
		return fmt.Errorf("--export %s: the directory is not empty", dir)
	}
	if err := saveCommand(dir, o); err != nil {
		return err
	}
	if err := explore.WriteDecisions(filepath.Join(dir, completeFile), ds); err != nil {
		return err
	}
	if buffering != "" {
		if err := rundir.WriteFile(filepath.Join(dir, bufferingFile), []byte(buffering+"\n")); err != nil {
			return err
		}
	}
	abs, _ := filepath.Abs(from)
	data, _ := json.MarshalIndent(witness{From: abs, Interleaving: n, Program: o.Program, SHA256: sum, Decisions: len(ds)}, "", "  ")
	return rundir.WriteFile(filepath.Join(dir, witnessFile), append(data, '\n'))
}

// checkWitness checks, when dir is a witness, that the program to run is
// the binary it was made with; program replaces the recorded path if set.
func checkWitness(dir string, o *Options, program string) error {
	data, err := os.ReadFile(filepath.Join(dir, witnessFile))
	if program != "" {
		o.Program = program
	}
	if err != nil {
		return nil // a run directory
	}
	w, err := parseWitness(dir, data)
	if err != nil {
		return err
	}
	sum, err := fileSHA256(o.Program)
	if err != nil {
		return fmt.Errorf("the witness replays %s: %v (--program PATH names the same binary elsewhere)", o.Program, err)
	}
	if !strings.EqualFold(sum, w.SHA256) {
		return fmt.Errorf("%s is not the binary the witness was made with (its SHA-256 is %s, the witness needs %s)", o.Program, sum, w.SHA256)
	}
	return nil
}

// parseWitness reads witness.json of the witness in dir (its contents
// data) and checks it against the decisions beside it: a witness that is
// not as Export writes it, or whose decisions are damaged or not as many
// as it says, is a trace.DamageError.
func parseWitness(dir string, data []byte) (*witness, error) {
	path := filepath.Join(dir, witnessFile)
	damaged := func(f string, a ...any) error { return &trace.DamageError{File: path, What: fmt.Sprintf(f, a...)} }
	var w witness
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&w); err != nil {
		return nil, damaged("not a witness as mpivet replay --export writes it: %v", err)
	}
	if d.More() {
		return nil, damaged("text after the witness")
	}
	if b, err := hex.DecodeString(w.SHA256); err != nil || len(b) != sha256.Size {
		return nil, damaged("%q is no SHA-256", w.SHA256)
	}
	if w.Interleaving < 1 || w.Decisions < 0 {
		return nil, damaged("interleaving %d with %d decisions", w.Interleaving, w.Decisions)
	}
	ds, err := explore.ReadDecisions(filepath.Join(dir, completeFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, damaged("its decisions (%s) are missing", completeFile)
	} else if err != nil {
		return nil, err
	}
	if len(ds) != w.Decisions {
		return nil, damaged("it says %d decisions, %s holds %d", w.Decisions, completeFile, len(ds))
	}
	return &w, nil
}
