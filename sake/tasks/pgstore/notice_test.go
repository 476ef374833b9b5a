package pgstore

import (
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
)

// A replica reads the echo of its own notices without decoding them, and
// takes every other notice (another replica's, one naming it only inside
// the task) for a full decode.
func TestOwnEcho(t *testing.T) {
	task := &backend.Task{ID: "t1", Owner: "me", Tool: "n", Status: sake.TaskWorking, CreatedAt: time.Now(), LastUpdatedAt: time.Now(),
		Result: []byte(`{"n":5}`)}
	mine, other := ownPrefix("r1"), ownPrefix("r2")
	for _, tc := range []struct {
		name    string
		payload string
		prefix  string
		echo    uint64
		ok      bool
	}{
		{"own task notice", encodeNotice("r1", noticeUpdated, task, 2, 41), mine, 41, true},
		{"own bare notice", bareNotice("r1", "t1", noticeDeleted, 7), mine, 7, true},
		{"own notice without echo", encodeNotice("r1", noticeCreated, task, 1, 0), mine, 0, true},
		{"another's notice", encodeNotice("r2", noticeUpdated, task, 2, 41), mine, 0, false},
		{"a sweep's notice", `{"o":"","i":"t1","k":"u","v":3}`, mine, 0, false},
		{"a name that is a prefix of another", encodeNotice("r1", noticeUpdated, task, 2, 9), ownPrefix("r"), 0, false},
		{"own, read by the other", bareNotice("r1", "t1", noticeDeleted, 7), other, 0, false},
	} {
		echo, ok := ownEcho(tc.payload, tc.prefix)
		if echo != tc.echo || ok != tc.ok {
			t.Errorf("%s: ownEcho(%s) = %d, %v; want %d, %v", tc.name, tc.payload, echo, ok, tc.echo, tc.ok)
		}
	}
}
