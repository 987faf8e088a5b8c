// Package sarifcheck validates SARIF logs against the SARIF 2.1.0 schema,
// for the tests of what writes them (package report's log of one run, the
// suite's merged log, the corpus's logs of real runs).
//
// sarif-schema-2.1.0.json is the SARIF 2.1.0 schema (rtm.5, the one of the
// standard's final text) as npm's @microsoft/jest-sarif 1.0.0-beta.0 ships
// it (lib/schemas/sarif-2.1.0-rtm.5.json, MIT).
package sarifcheck

import (
	"bytes"
	_ "embed"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed sarif-schema-2.1.0.json
var schemaJSON []byte

var (
	once      sync.Once
	schema    *jsonschema.Schema
	schemaErr error
)

// Schema is the SARIF 2.1.0 schema, compiled once.
func Schema() (*jsonschema.Schema, error) {
	once.Do(func() {
		var doc any
		if doc, schemaErr = jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON)); schemaErr != nil {
			return
		}
		c := jsonschema.NewCompiler()
		if schemaErr = c.AddResource("sarif-schema-2.1.0.json", doc); schemaErr != nil {
			return
		}
		schema, schemaErr = c.Compile("sarif-schema-2.1.0.json")
	})
	return schema, schemaErr
}

// Validate reports why the SARIF log data does not validate against the
// schema (nil when it does).
func Validate(data []byte) error {
	s, err := Schema()
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return s.Validate(doc)
}
