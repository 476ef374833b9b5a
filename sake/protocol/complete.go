package protocol

// CompleteRef names what completion/complete completes.
type CompleteRef struct {
	Type string `json:"type"` // "ref/prompt" or "ref/resource"
	Name string `json:"name,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// CompleteArgument is the argument being completed and its partial value.
type CompleteArgument struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// CompleteContext carries the values of arguments already filled in.
type CompleteContext struct {
	Arguments map[string]string `json:"arguments,omitempty"`
}

// CompleteRequest is what a completion handler receives: the argument (or
// template variable) being completed, what the user typed so far, and the
// values of the arguments already filled in.
type CompleteRequest struct {
	Argument  string
	Value     string
	Arguments map[string]string
}
