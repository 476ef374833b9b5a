package pgstore

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
)

// maxNotice is the longest NOTIFY payload sent with the task in it
// (PostgreSQL takes under 8000 bytes); a longer one goes without it, and
// the replicas that need the task read it from the table.
const maxNotice = 7900

// What a notice announces.
const (
	noticeCreated = "c" // a new task, at version 1
	noticeUpdated = "u" // a stored change
	noticeDeleted = "d" // deleted (expired)
	noticeAnswers = "a" // answers stored for the replica running the task
	// noticeTaken confirms to the replica ID that its change Acked was
	// taken in (see pglisten.Confirmations).
	noticeTaken = "ok"
)

// notice is a change on the wire: every write of a Store announces itself
// in the statement that makes it, so the announcement is sent exactly when
// the change commits.
type notice struct {
	Origin  string    `json:"o"`
	ID      string    `json:"i"`
	Kind    string    `json:"k"`
	Version int64     `json:"v,omitempty"`
	Task    *wireTask `json:"t,omitempty"`
	// Acked is the number of the notice a confirmation is for.
	Acked uint64 `json:"a,omitempty"`
	// Echo is what the writer waits for to come back (pglisten.Echoes);
	// it is written last (see ownEcho).
	Echo uint64 `json:"n,omitempty"`
}

// wireTask is a task in a notice (its id is the notice's).
type wireTask struct {
	Owner         string                     `json:"o"`
	Tool          string                     `json:"n,omitempty"`
	Status        string                     `json:"s"`
	StatusMessage string                     `json:"m,omitempty"`
	CreatedAt     int64                      `json:"c"` // Unix microseconds
	LastUpdatedAt int64                      `json:"u"`
	TTL           int64                      `json:"ttl,omitempty"` // milliseconds
	PollInterval  int64                      `json:"p,omitempty"`
	InputRequests map[string]json.RawMessage `json:"q,omitempty"`
	Result        json.RawMessage            `json:"r,omitempty"`
	ResultIsError bool                       `json:"e,omitempty"`
	Error         *sake.Error                `json:"x,omitempty"`
}

// encodeNotice is the payload announcing t at version: with the task when
// it fits, else without.
func encodeNotice(origin, kind string, t *backend.Task, version int64, echo uint64) string {
	n := notice{Origin: origin, ID: t.ID, Kind: kind, Version: version, Echo: echo, Task: &wireTask{
		Owner: t.Owner, Tool: t.Tool, Status: t.Status, StatusMessage: t.StatusMessage,
		CreatedAt: t.CreatedAt.UnixMicro(), LastUpdatedAt: t.LastUpdatedAt.UnixMicro(),
		TTL: t.TTL.Milliseconds(), PollInterval: t.PollInterval.Milliseconds(),
		InputRequests: t.InputRequests, Result: t.Result, ResultIsError: t.ResultIsError, Error: t.Error,
	}}
	b, err := json.Marshal(n)
	if err != nil || len(b) > maxNotice {
		n.Task = nil
		b, _ = json.Marshal(n)
	}
	return string(b)
}

// bareNotice is the payload of a notice without a task.
func bareNotice(origin, id, kind string, echo uint64) string {
	b, _ := json.Marshal(notice{Origin: origin, ID: id, Kind: kind, Echo: echo})
	return string(b)
}

// task returns the task a notice carries, or nil.
func (n *notice) task() *backend.Task {
	w := n.Task
	if w == nil {
		return nil
	}
	t := &backend.Task{ID: n.ID, Owner: w.Owner, Tool: w.Tool, Status: w.Status, StatusMessage: w.StatusMessage,
		CreatedAt: time.UnixMicro(w.CreatedAt).UTC(), LastUpdatedAt: time.UnixMicro(w.LastUpdatedAt).UTC(),
		TTL: time.Duration(w.TTL) * time.Millisecond, PollInterval: time.Duration(w.PollInterval) * time.Millisecond,
		InputRequests: w.InputRequests, Result: w.Result, ResultIsError: w.ResultIsError, Error: w.Error}
	if t.Result != nil && string(t.Result) == "null" {
		t.Result = nil
	}
	return t
}

// ownPrefix is how the notices origin sends begin.
func ownPrefix(origin string) string {
	b, _ := json.Marshal(origin)
	return `{"o":` + string(b) + `,`
}

// ownEcho reads, without decoding the rest, a notice that begins with
// prefix (ownPrefix), one this replica sent: its origin is the first field and its echo, when it has one, the
// last (as encodeNotice and bareNotice write them). ok is false for
// another replica's notice, which is decoded in full.
func ownEcho(payload, prefix string) (echo uint64, ok bool) {
	rest, found := strings.CutPrefix(payload, prefix)
	if !found {
		return 0, false
	}
	i := strings.LastIndex(rest, `,"n":`)
	if i < 0 || !strings.HasSuffix(rest, "}") {
		return 0, true
	}
	n, err := strconv.ParseUint(rest[i+len(`,"n":`):len(rest)-1], 10, 64)
	if err != nil {
		return 0, true
	}
	return n, true
}
