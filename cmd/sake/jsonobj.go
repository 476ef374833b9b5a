package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// member is one name and value of a JSON object.
type member struct {
	Key   string
	Value json.RawMessage
}

// object is a JSON object that keeps its members in order, so that a
// file rewritten with one member changed reads as before otherwise.
type object []member

// decodeObject decodes a JSON object, keeping the order of its members
// and their values as written. A repeated name keeps its first place and
// its last value.
func decodeObject(b []byte) (object, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	if delim, ok := tok.(json.Delim); !ok || delim != '{' {
		return nil, errors.New("not a JSON object")
	}
	var o object
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, err
		}
		o.set(key, v)
	}
	if _, err := d.Token(); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err == nil {
		return nil, errors.New("more after the object")
	}
	return o, nil
}

// get returns the value of key.
func (o object) get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.Key == key {
			return m.Value, true
		}
	}
	return nil, false
}

// set replaces the value of key, or appends key.
func (o *object) set(key string, v json.RawMessage) {
	for i := range *o {
		if (*o)[i].Key == key {
			(*o)[i].Value = v
			return
		}
	}
	*o = append(*o, member{key, v})
}

// MarshalJSON encodes the object with its members in order.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.Key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		if len(m.Value) == 0 {
			return nil, fmt.Errorf("member %q has no value", m.Key)
		}
		b.Write(m.Value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
