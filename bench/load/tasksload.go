package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// toolName is the tool a workload calls: echo, or echo_task for the tasks
// workload (the same echo, run as a task).
func toolName(tasks bool) string {
	if tasks {
		return "echo_task"
	}
	return "echo"
}

// modernTaskMeta is params._meta of a 2026-07-28 request from a client
// that declares the tasks extension.
const modernTaskMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + modernVersion + `",` +
	`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"sake-bench","version":"1.0.0"}}`

// maxPolls bounds the tasks/get requests of one task: a task still
// working after that many is counted as an error.
const maxPolls = 10_000

// taskFields are the members of a task the workload reads; the legacy
// CreateTaskResult nests them under "task", the modern one does not.
type taskFields struct {
	TaskID string `json:"taskId"`
	Status string `json:"status"`
}

// taskMessage is a tools/call or tasks/get response of the tasks workload.
type taskMessage struct {
	Result *struct {
		taskFields
		Task   *taskFields `json:"task"`
		Result *struct {
			Content []content `json:"content"`
			IsError bool      `json:"isError"`
		} `json:"result"` // a completed modern task's tool result
	} `json:"result"`
}

// callTask runs one operation of the tasks workload: tools/call echo_task
// as a task, tasks/get until the task is completed (at once, without
// waiting the poll interval the server suggests, so what is measured is
// the cost of the task machinery), and in the legacy era tasks/result.
// The result's text must be the text sent. The latency covers them all.
func (c *httpClient) callTask(ctx context.Context) (time.Duration, error) {
	c.seq++
	id := int64(c.seq)
	want := "hello-" + strconv.Itoa(c.idx) + "-" + strconv.Itoa(c.seq)
	c.body = fmt.Appendf(c.body[:0], `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo_task","arguments":{"text":%q}`, id, want)
	if c.modern {
		c.body = append(c.body, ',')
		c.body = append(c.body, modernTaskMeta...)
	} else {
		c.body = append(c.body, `,"task":{}`...)
	}
	c.body = append(c.body, `}}`...)
	t0 := time.Now()
	m, err := c.taskRequest(ctx, id, c.body, c.hdr, "tools/call")
	if err != nil {
		return 0, err
	}
	task := m.Result.taskFields
	if m.Result.Task != nil {
		task = *m.Result.Task
	}
	if task.TaskID == "" {
		return 0, fmt.Errorf("tools/call echo_task answered without a task: %s", short(c.resp.String(), 200))
	}
	if c.modern {
		c.getHdr.Set("Mcp-Method", "tasks/get")
		c.getHdr.Set("Mcp-Name", task.TaskID)
	}
	taskID, _ := json.Marshal(task.TaskID)
	for polls := 0; task.Status != "completed"; polls++ {
		if task.Status != "working" || polls == maxPolls {
			return 0, fmt.Errorf("task %s is %s after %d polls, want completed", task.TaskID, task.Status, polls)
		}
		c.seq++
		c.polls++
		id = int64(c.seq)
		c.body = fmt.Appendf(c.body[:0], `{"jsonrpc":"2.0","id":%d,"method":"tasks/get","params":{"taskId":%s`, id, taskID)
		if c.modern {
			c.body = append(c.body, ',')
			c.body = append(c.body, modernTaskMeta...)
		}
		c.body = append(c.body, `}}`...)
		if m, err = c.taskRequest(ctx, id, c.body, c.getHdr, "tasks/get"); err != nil {
			return 0, err
		}
		task = m.Result.taskFields
	}
	if c.modern {
		r := m.Result.Result
		switch {
		case r == nil || len(r.Content) == 0:
			return 0, fmt.Errorf("completed task %s without a result", task.TaskID)
		case r.IsError || r.Content[0].Text != want:
			return 0, fmt.Errorf("task %s result %q (isError %v), want text %q", task.TaskID, short(r.Content[0].Text, 80), r.IsError, want)
		}
		return time.Since(t0), nil
	}
	c.seq++
	id = int64(c.seq)
	c.body = fmt.Appendf(c.body[:0], `{"jsonrpc":"2.0","id":%d,"method":"tasks/result","params":{"taskId":%s}}`, id, taskID)
	resp, body, err := c.post(ctx, c.body, c.getHdr)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("tasks/result: HTTP %d: %s", resp.StatusCode, short(string(body), 300))
	}
	if err := verifyBody(body, isSSE(resp), id, []byte(want)); err != nil {
		return 0, fmt.Errorf("tasks/result: %v", err)
	}
	return time.Since(t0), nil
}

// taskRequest posts one request of the tasks workload and decodes its
// response, which must be a result.
func (c *httpClient) taskRequest(ctx context.Context, id int64, body []byte, hdr http.Header, method string) (*taskMessage, error) {
	resp, got, err := c.post(ctx, body, hdr)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %d: %s", method, resp.StatusCode, short(string(got), 300))
	}
	r, raw, err := findMessage(got, isSSE(resp), id)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", method, err)
	}
	if r.Error != nil {
		return nil, fmt.Errorf("%s: JSON-RPC error %d: %s%s", method, r.Error.Code, r.Error.Message, dataSuffix(r.Error.Data))
	}
	var m taskMessage
	if err := json.Unmarshal(raw, &m); err != nil || m.Result == nil {
		return nil, fmt.Errorf("%s: unexpected answer %s", method, short(string(raw), 200))
	}
	return &m, nil
}
