package report

import (
	"encoding/json"
	"io"
	"os"
)

// JSON prints the report as the JSON document tools and tests read (see
// docs/guide/reports.md, JSON). Every finding carries its fingerprint.
type JSON struct{ w io.Writer }

// NewJSON returns a JSON printer writing to w.
func NewJSON(w io.Writer) *JSON { return &JSON{w} }

// Print writes r.
func (j *JSON) Print(r *Report) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = j.w.Write(append(data, '\n'))
	return err
}

// WriteJSON writes the JSON document to the file path.
func WriteJSON(path string, r *Report) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := NewJSON(f).Print(r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
