package checkedargs

import "encoding/json"

// Args are the arguments of a tools/call, already validated as JSON by
// the dispatcher that decoded the request they came in.
type Args struct {
	JSON json.RawMessage
}

// MarshalJSON returns the arguments as json.RawMessage does, for the
// encoders that do not know the type.
func (a *Args) MarshalJSON() ([]byte, error) { return a.JSON.MarshalJSON() }
