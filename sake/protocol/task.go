package protocol

// TaskExtension is the id of the tasks extension (SEP-2663) in
// capabilities.extensions.
const TaskExtension = "io.modelcontextprotocol/tasks"

// Task statuses. The last three are terminal.
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)
