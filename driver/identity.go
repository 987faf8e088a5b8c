package driver

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// programSHA256 is the key of the program's SHA-256 in the command record:
// a replay checks it, so that a program rebuilt since the run is not
// forced through decisions made for other calls.
const programSHA256 = "program_sha256"

// binarySHA256 is the SHA-256 of the program to run (a path, or a name
// looked up in PATH).
func binarySHA256(program string) (string, error) {
	if !strings.Contains(program, "/") {
		if p, err := exec.LookPath(program); err == nil {
			program = p
		}
	}
	return fileSHA256(program)
}

// checkRecordedBinary checks that program is the binary the run in dir
// was made with, by the SHA-256 its command record keeps. A record
// without one (made by an older mpivet, or by hand) cannot be checked:
// notify says so, loudly. A witness with its witness.json is checked by
// checkWitness.
func checkRecordedBinary(dir, program string, notify func(string)) error {
	data, err := os.ReadFile(filepath.Join(dir, commandFile))
	if err != nil {
		return nil // (loadCommand says so)
	}
	var rec map[string]json.RawMessage
	var want string
	if json.Unmarshal(data, &rec) == nil {
		json.Unmarshal(rec[programSHA256], &want)
	}
	if want == "" {
		if notify != nil {
			notify(fmt.Sprintf("WARNING: cannot check that %s is the binary the run in %s was made with: its %s records no SHA-256 "+
				"(and there is no %s). A program changed since then replays other calls than those forced, and its replay means nothing",
				program, dir, commandFile, witnessFile))
		}
		return nil
	}
	sum, err := binarySHA256(program)
	if err != nil {
		return fmt.Errorf("the run in %s was made with %s: %v (--program PATH names the same binary elsewhere)", dir, program, err)
	}
	if !strings.EqualFold(sum, want) {
		return fmt.Errorf("%s is not the binary the run in %s was made with (its SHA-256 is %s, %s records %s): "+
			"it changed since, and a replay would force the run's matches on other calls; run the changed program with mpivet run",
			program, dir, sum, commandFile, want)
	}
	return nil
}
