package sake

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// The JSON of tasks: the results of tools/call, tasks/get, tasks/list
// and tasks/result in both eras, and the members notifications carry.

// createdTask is the answer to a tools/call that became a task.
type createdTask struct{ task *backend.Task }

func (r *createdTask) appendResult(dst []byte, w *resultWriter) ([]byte, error) {
	if w.era == EraModern {
		dst = append(dst, '{')
		dst = appendTaskFields(dst, r.task, true)
		return w.tail(dst, false, nil, cacheNone, "task")
	}
	dst = append(dst, `{"task":{`...)
	dst = appendTaskFields(dst, r.task, false)
	return w.tail(append(dst, '}'), false, nil, cacheNone, "")
}

const taskTimeLayout = "2006-01-02T15:04:05.000Z07:00"

// appendTaskFields writes the Task members without braces, with the
// modern (ttlMs, pollIntervalMs) or legacy (ttl, pollInterval) names.
func appendTaskFields(dst []byte, t *backend.Task, modern bool) []byte {
	dst = append(dst, `"taskId":`...)
	dst = protocol.AppendString(dst, t.ID)
	status := t.Status
	if !modern && status == TaskCompleted && t.ResultIsError {
		status = TaskFailed // 2025-11-25: a tool error fails the task
	}
	dst = append(dst, `,"status":`...)
	dst = protocol.AppendString(dst, status)
	dst = protocol.AppendOptString(dst, "statusMessage", t.StatusMessage)
	dst = append(dst, `,"createdAt":`...)
	dst = protocol.AppendString(dst, t.CreatedAt.UTC().Format(taskTimeLayout))
	dst = append(dst, `,"lastUpdatedAt":`...)
	dst = protocol.AppendString(dst, t.LastUpdatedAt.UTC().Format(taskTimeLayout))
	ttlKey, pollKey := `,"ttl":`, `,"pollInterval":`
	if modern {
		ttlKey, pollKey = `,"ttlMs":`, `,"pollIntervalMs":`
	}
	dst = append(dst, ttlKey...)
	if t.TTL > 0 {
		dst = strconv.AppendInt(dst, t.TTL.Milliseconds(), 10)
	} else {
		dst = append(dst, "null"...)
	}
	if t.PollInterval > 0 {
		dst = append(dst, pollKey...)
		dst = strconv.AppendInt(dst, max(t.PollInterval.Milliseconds(), 1), 10)
	}
	return dst
}

// detailedTask is the modern tasks/get result, and the params of
// notifications/tasks.
type detailedTask struct{ task *backend.Task }

func appendDetailed(dst []byte, t *backend.Task) []byte {
	dst = appendTaskFields(dst, t, true)
	switch t.Status {
	case TaskInputRequired:
		if len(t.InputRequests) > 0 {
			dst = append(dst, `,"inputRequests":{`...)
			first := true
			for _, k := range slices.Sorted(maps.Keys(t.InputRequests)) {
				dst = protocol.AppendKey(dst, k, first)
				dst = append(dst, t.InputRequests[k]...)
				first = false
			}
			dst = append(dst, '}')
		}
	case TaskCompleted:
		if len(t.Result) > 1 {
			dst = append(dst, `,"result":`...)
			dst = append(dst, t.Result[:len(t.Result)-1]...)
			if len(t.Result) > 2 {
				dst = append(dst, ',')
			}
			dst = append(dst, `"resultType":"complete"}`...)
		}
	case TaskFailed:
		if t.Error != nil {
			b, _ := json.Marshal(t.Error)
			dst = append(dst, `,"error":`...)
			dst = append(dst, b...)
		}
	}
	return dst
}

func (r *detailedTask) appendResult(dst []byte, w *resultWriter) ([]byte, error) {
	dst = append(dst, '{')
	dst = appendDetailed(dst, r.task)
	return w.tail(dst, false, nil, cacheNone, "")
}

// legacyTask is the 2025-11-25 Task result (tasks/get, tasks/cancel).
type legacyTask struct{ task *backend.Task }

func (r *legacyTask) appendResult(dst []byte, w *resultWriter) ([]byte, error) {
	dst = append(dst, '{')
	dst = appendTaskFields(dst, r.task, false)
	return w.tail(dst, false, nil, cacheNone, "")
}

// legacyTaskList is the tasks/list result.
type legacyTaskList struct {
	tasks []*backend.Task
	next  string
}

func (r *legacyTaskList) appendResult(dst []byte, w *resultWriter) ([]byte, error) {
	dst = append(dst, `{"tasks":[`...)
	for i, t := range r.tasks {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '{')
		dst = appendTaskFields(dst, t, false)
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	dst = protocol.AppendOptString(dst, "nextCursor", r.next)
	return w.tail(dst, false, nil, cacheNone, "")
}

// relatedResult is a legacy tasks/result: the tool's result with the
// related-task _meta.
type relatedResult struct{ task *backend.Task }

func (r *relatedResult) appendResult(dst []byte, _ *resultWriter) ([]byte, error) {
	res := r.task.Result
	if len(res) < 2 {
		res = []byte(`{"content":[]}`)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(res, &obj); err != nil {
		return dst, err
	}
	meta := map[string]json.RawMessage{}
	if m, ok := obj["_meta"]; ok {
		_ = json.Unmarshal(m, &meta)
	}
	rel, _ := json.Marshal(map[string]string{"taskId": r.task.ID})
	meta["io.modelcontextprotocol/related-task"] = rel
	obj["_meta"], _ = json.Marshal(meta)
	b, err := json.Marshal(obj)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}
