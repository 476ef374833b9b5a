package protocol

// List names one of a server's component lists, as it appears in the
// method of its list_changed notification.
type List string

// The lists whose changes are broadcast.
const (
	ListTools     List = "tools"
	ListResources List = "resources"
	ListPrompts   List = "prompts"
)
