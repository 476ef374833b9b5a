package sake_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/sakemcp/sake-go/sake"
)

// notes is the server most tests use: a small note-taking service.
type notes struct {
	mu    sync.Mutex
	items map[string]string
}

func newNotes() *notes { return &notes{items: map[string]string{"1": "buy milk"}} }

type addArgs struct {
	ID       string   `json:"id" jsonschema:"description=Identifier of the note,pattern=^[0-9]+$"`
	Text     string   `json:"text" jsonschema:"minLength=1,maxLength=200"`
	Priority int      `json:"priority,omitempty" jsonschema:"minimum=1,maximum=5,default=3"`
	Tags     []string `json:"tags,omitempty"`
	Color    string   `json:"color,omitempty" jsonschema:"enum=red,enum=green"`
}

type noteList struct {
	Count int      `json:"count"`
	IDs   []string `json:"ids"`
}

func (n *notes) Declare(d *sake.Declarations) {
	d.Tool("AddNote").Description("Adds a note.").Title("Add a note").Idempotent()
	d.Tool("ListNotes").Description("Lists the notes.").ReadOnly()
	d.Tool("Explode").Description("Panics.")
	d.Resource("Readme", "notes://readme").Description("How to use the notes.").MIMEType("text/markdown")
	d.ResourceTemplate("Note", "notes://{id}").Description("One note.").Complete("id", "NoteIDs")
	d.Prompt("Summarize").Description("Summarizes the notes.")
	d.Ignore("Helper")
}

func (n *notes) AddNote(ctx *sake.Context, a addArgs) (string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, ok := n.items[a.ID]; ok {
		return "", fmt.Errorf("note %s already exists", a.ID)
	}
	n.items[a.ID] = a.Text
	return "added " + a.ID, nil
}

func (n *notes) ListNotes(ctx context.Context) (noteList, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	var ids []string
	for id := range n.items {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return noteList{Count: len(ids), IDs: ids}, nil
}

func (n *notes) Explode(ctx *sake.Context) (string, error) { panic("boom") }

func (n *notes) Forbidden(ctx *sake.Context) error {
	return &sake.Error{Code: -31000, Message: "not for you"}
}

func (n *notes) Report(ctx *sake.Context) (*sake.ToolResult, error) {
	ctx.Progress(1, 2, "half")
	ctx.Progress(2, 2, "done")
	ctx.Log(sake.LevelInfo, "notes", "reported")
	ctx.Log(sake.LevelDebug, "notes", "details")
	return &sake.ToolResult{Content: []sake.Content{sake.Text("report"), sake.Image([]byte{1, 2}, "image/png")}}, nil
}

func (n *notes) Helper(ctx *sake.Context) string { return "not a tool" }

// Count is exported but takes no context: not a component.
func (n *notes) Count() int { return len(n.items) }

func (n *notes) Readme(ctx *sake.Context) (string, error) { return "# Notes", nil }

type noteVars struct {
	ID string `json:"id"`
}

func (n *notes) Note(ctx *sake.Context, v noteVars) (string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	text, ok := n.items[v.ID]
	if !ok {
		return "", sake.ErrResourceNotFound
	}
	return text, nil
}

func (n *notes) NoteIDs(ctx *sake.Context, r sake.CompleteRequest) ([]string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []string
	for id := range n.items {
		if strings.HasPrefix(id, r.Value) {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out, nil
}

type summarizeArgs struct {
	Style string `json:"style" jsonschema:"description=How to summarize,enum=short,enum=long"`
	Topic string `json:"topic,omitempty"`
}

func (n *notes) Summarize(ctx *sake.Context, a summarizeArgs) (string, error) {
	if a.Topic == "secret" {
		return "", errors.New("no")
	}
	return "Summarize the notes in " + a.Style + " form.", nil
}
