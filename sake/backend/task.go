package backend

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// Task is the state of a long-running tool call as its owner sees it.
type Task struct {
	ID            string
	Owner         string // Identity.Owner() of whoever started it
	Tool          string
	Status        string
	StatusMessage string
	CreatedAt     time.Time
	LastUpdatedAt time.Time
	// TTL is how long the task is kept after it was created; 0 means no
	// limit.
	TTL          time.Duration
	PollInterval time.Duration
	// InputRequests are the questions outstanding while the status is
	// input_required, by key: each is {"method":...,"params":...}.
	InputRequests map[string]json.RawMessage
	// Result is the tool result (a JSON object) of a completed task.
	Result json.RawMessage
	// ResultIsError says the completed result has isError set; the legacy
	// era reports such a task as failed.
	ResultIsError bool
	// Error is the JSON-RPC error of a failed task.
	Error *protocol.Error
}

// Terminal reports whether the task has finished.
func (t *Task) Terminal() bool {
	return t.Status == protocol.TaskCompleted || t.Status == protocol.TaskFailed || t.Status == protocol.TaskCancelled
}

// TaskOptions are what a task is created with.
type TaskOptions struct {
	Tool         string
	TTL          time.Duration
	PollInterval time.Duration
}

// ErrTaskNotFound is returned for a task id that does not exist, has
// expired, or belongs to another owner: callers cannot tell these apart.
var ErrTaskNotFound = errors.New("backend: no such task")

// TaskManager keeps tasks and their state. The package sake/tasks provides
// one (in memory, or over a shared store); a server runs tools as tasks
// when it has one (the sake.Tasks option).
type TaskManager interface {
	// Create stores a new task (status working) for owner and returns it
	// with the control its work reports through. It returns only once Get
	// would find the task.
	Create(ctx context.Context, owner string, opts TaskOptions) (*Task, TaskControl, error)
	// Get returns the owner's task, or ErrTaskNotFound.
	Get(ctx context.Context, owner, id string) (*Task, error)
	// Answer delivers answers to outstanding input requests; unknown keys
	// are ignored and partial answers are kept until all have come.
	Answer(ctx context.Context, owner, id string, responses map[string]json.RawMessage) error
	// Cancel asks the task's work to stop and marks the task cancelled
	// (unless it already finished). It returns the task as it is then.
	Cancel(ctx context.Context, owner, id string) (*Task, error)
	// List returns a page of the owner's tasks, newest first, and the
	// cursor of the next page ("" at the end).
	List(ctx context.Context, owner, cursor string, limit int) ([]*Task, string, error)
	// Wait blocks until until(task) is true (checked now and on every
	// change of the task) or ctx ends, and returns the task.
	Wait(ctx context.Context, owner, id string, until func(*Task) bool) (*Task, error)
	// Subscribe calls fn with every change of the owner's tasks until
	// stop is called. fn must not block.
	Subscribe(owner string, fn func(*Task)) (stop func())
}

// TaskControl is how the work of one task reports.
type TaskControl interface {
	// Context ends when the task is cancelled or expires, or the manager
	// shuts down.
	Context() context.Context
	// NeedInput parks the task in input_required with the requests (by
	// key) and blocks until every one is answered, returning the answers,
	// or until the context ends.
	NeedInput(requests map[string]json.RawMessage) (map[string]json.RawMessage, error)
	// Progress records a status message while the task works. It returns
	// an error when the message is refused (a -32602 *protocol.Error for
	// one that is not valid UTF-8 or holds a NUL, which no store need
	// keep) or cannot be stored; once the task is terminal it is ignored.
	Progress(message string) error
	// Complete finishes the task with a tool result (isError says the
	// tool reported an error).
	Complete(result json.RawMessage, isError bool)
	// Fail finishes the task with a JSON-RPC error.
	Fail(err *protocol.Error)
}
