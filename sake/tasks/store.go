package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"time"

	"github.com/sakemcp/sake-go/sake/backend"
)

// Store persists tasks. NewMemoryStore is the default; a shared store (a
// database) lets several replicas serve the same tasks.
//
// Every method is safe for concurrent use. Tasks passed in are copied
// before the call returns, and tasks returned are copies the caller may
// keep and modify: no caller can reach stored state. A store does not
// interpret ownership or expiry beyond what each method says; the Manager
// does.
type Store interface {
	// Create stores a new task. A task whose ID is empty or already
	// stored is an error (errors.Is ErrTaskExists for the latter).
	Create(ctx context.Context, t *backend.Task) error
	// Get returns the task, expired or not, or backend.ErrTaskNotFound.
	Get(ctx context.Context, id string) (*backend.Task, error)
	// Update applies fn to the stored task atomically and returns the
	// new value. fn sees the current value (a copy) and may change it;
	// if fn returns an error nothing is stored and Update returns that
	// error unchanged. A store may call fn more than once (compare and
	// swap retries), so fn must not have effects outside the task. fn
	// must not change ID or Owner. An unknown id is
	// backend.ErrTaskNotFound.
	Update(ctx context.Context, id string, fn func(*backend.Task) error) (*backend.Task, error)
	// Delete removes the task; an unknown id is backend.ErrTaskNotFound.
	Delete(ctx context.Context, id string) error
	// List returns up to limit (all if limit <= 0) of owner's tasks,
	// expired or not, newest CreatedAt first; tasks created in the same
	// instant come in an order the store chooses but keeps. after is the
	// id of the last task of the previous page, "" for the first page; an
	// after that is not one of owner's tasks is backend.ErrTaskNotFound.
	List(ctx context.Context, owner string, after string, limit int) ([]*backend.Task, error)
	// Expired returns the ids of up to limit (all if limit <= 0) tasks
	// whose TTL is positive and whose CreatedAt+TTL is before now.
	Expired(ctx context.Context, now time.Time, limit int) ([]string, error)
}

// workKey marks the context of the store calls that write what a task's
// own work reported.
type workKey struct{}

// FromWork reports whether a Store call made with ctx writes what a task's
// own work reported (its progress, its questions, its final state) rather
// than a change a client asked for and is answered with at once (a
// creation, answers, a cancellation). A store shared by replicas may hold
// back its answer to a client's change until the other replicas have been
// told of it (sake/tasks/pgstore does); a report of the work needs no such
// wait, since clients learn of it by reading the task.
func FromWork(ctx context.Context) bool { return ctx.Value(workKey{}) != nil }

// ErrTaskExists is returned by Store.Create for an id already stored.
var ErrTaskExists = errors.New("tasks: task id already exists")

// expired reports whether t's TTL has run out at now.
func expired(t *backend.Task, now time.Time) bool {
	return t.TTL > 0 && t.CreatedAt.Add(t.TTL).Before(now)
}

// cloneTask returns a deep copy of t: the input requests, the result and
// the error are copied (the error's Data is shared).
func cloneTask(t *backend.Task) *backend.Task {
	c := *t
	if t.InputRequests != nil {
		c.InputRequests = cloneRequests(t.InputRequests)
	}
	if t.Result != nil {
		c.Result = bytes.Clone(t.Result)
	}
	if t.Error != nil {
		e := *t.Error
		c.Error = &e
	}
	return &c
}

// cloneRequests copies a map of raw messages and each message.
func cloneRequests(m map[string]json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		return nil
	}
	c := maps.Clone(m)
	for k, v := range c {
		c[k] = bytes.Clone(v)
	}
	return c
}
