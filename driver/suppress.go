package driver

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"mpivet/check"
	"mpivet/report"
)

// loadSuppressions reads the suppression file: the one named, which must
// exist, or the default one in the working directory, if there is one.
func loadSuppressions(path string) ([]*report.Suppression, error) {
	if path == "" {
		path = report.DefaultSuppressions
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
	}
	ss, err := report.ReadSuppressions(path)
	if err != nil {
		return nil, fmt.Errorf("suppressions: %v", err)
	}
	return ss, nil
}

// suppressed reports whether a suppression silences finding f (of an
// interleaving, before Findings gives it its fingerprint). The
// exploration asks, so that a suppressed error does not stop FirstError.
func (x *exploration) suppressed(f check.Finding) bool {
	f.Fingerprint = report.Fingerprint(f)
	for _, s := range x.supp {
		if s.Matches(f) {
			return true
		}
	}
	return false
}
