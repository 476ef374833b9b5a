package tasks

import (
	"encoding/json"
	"testing"

	"github.com/sakemcp/sake-go/sake/backend"
)

func ids(ts []*backend.Task) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}

func assertTaskEqual(t *testing.T, got, want *backend.Task) {
	t.Helper()
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if string(gj) != string(wj) || !got.CreatedAt.Equal(want.CreatedAt) || !got.LastUpdatedAt.Equal(want.LastUpdatedAt) {
		t.Errorf("task\n got %s\nwant %s", gj, wj)
	}
}
