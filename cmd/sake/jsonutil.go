package main

import (
	"bytes"
	"encoding/json"
	"io"
)

// compactInto writes b without insignificant space.
func compactInto(w io.Writer, b []byte) error {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// indentJSON writes b indented by two spaces, each line after the first
// starting with prefix.
func indentJSON(w io.Writer, b []byte, prefix string) error {
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, prefix, "  "); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}
