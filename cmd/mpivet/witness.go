package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"mpivet/explore"
)

// A witness is one interleaving of a run, exported so that it can be
// replayed elsewhere with the same binary (mpivet replay --export DIR, then
// mpivet replay DIR): a run directory of its own with the command
// (command.json: program, arguments, ranks, buffering and the other run
// options), the decisions that force every wildcard event to its outcome
// (decisions.complete), the buffering of the zero-buffering run if it is
// one (buffering), and witness.json, which says where it comes from and
// the SHA-256 of the binary it needs: replaying it on another binary
// would force decisions on calls that are not the same.
type witness struct {
	From         string `json:"from"` // run directory
	Interleaving int    `json:"interleaving"`
	Program      string `json:"program"`
	SHA256       string `json:"sha256"`
	Decisions    int    `json:"decisions"`
}

const witnessFile = "witness.json"

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
// command c, decisions ds and the buffering of its run (empty: the
// command's), as a witness in dir.
func exportWitness(dir, from string, n int, c command, ds []explore.Decision, buffering string) error {
	sum, err := fileSHA256(c.Program)
	if err != nil {
		return fmt.Errorf("cannot read the program: %v", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if ents, _ := os.ReadDir(dir); len(ents) > 0 {
		return fmt.Errorf("--export %s: the directory is not empty", dir)
	}
	data, _ := json.MarshalIndent(c, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "command.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	if err := explore.WriteDecisions(filepath.Join(dir, completeFile), ds); err != nil {
		return err
	}
	if buffering != "" {
		if err := os.WriteFile(filepath.Join(dir, "buffering"), []byte(buffering+"\n"), 0o644); err != nil {
			return err
		}
	}
	abs, _ := filepath.Abs(from)
	data, _ = json.MarshalIndent(witness{From: abs, Interleaving: n, Program: c.Program, SHA256: sum, Decisions: len(ds)}, "", "  ")
	return os.WriteFile(filepath.Join(dir, witnessFile), append(data, '\n'), 0o644)
}

// checkWitness checks, when dir is a witness, that the program to run is
// the binary it was made with; program replaces the recorded path if set.
func checkWitness(dir string, c *command, program string) error {
	data, err := os.ReadFile(filepath.Join(dir, witnessFile))
	if err != nil {
		if program != "" {
			c.Program = program
		}
		return nil // a run directory
	}
	var w witness
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("%s: %v", filepath.Join(dir, witnessFile), err)
	}
	if program != "" {
		c.Program = program
	}
	sum, err := fileSHA256(c.Program)
	if err != nil {
		return fmt.Errorf("the witness replays %s: %v (--program PATH names the same binary elsewhere)", c.Program, err)
	}
	if !strings.EqualFold(sum, w.SHA256) {
		return fmt.Errorf("%s is not the binary the witness was made with (its SHA-256 is %s, the witness needs %s)", c.Program, sum, w.SHA256)
	}
	return nil
}
