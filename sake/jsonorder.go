package sake

import (
	"encoding/json"
)

// propertyOrder returns the keys of the root object's "properties" member
// in the order they appear.
func propertyOrder(dec *json.Decoder) []string {
	var keys []string
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		key, _ := t.(string)
		if key != "properties" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return keys
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			return keys
		}
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return keys
			}
			k, _ := t.(string)
			keys = append(keys, k)
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return keys
			}
		}
		return keys
	}
	return keys
}
