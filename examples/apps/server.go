package main

import (
	"embed"
	"fmt"
	"strings"
	"sync"

	"github.com/sakemcp/sake-go/sake"
)

// ViewURI is the to-do list's view.
const ViewURI = "ui://todos/list"

// MaxTodos bounds the list: AddTodo refuses more.
const MaxTodos = 100

//go:embed view.html
var viewFS embed.FS

// Todo is one item of the list.
type Todo struct {
	ID   int    `json:"id"`
	Text string `json:"text"`
	Done bool   `json:"done"`
}

// TodoList is what every tool returns: the whole list, which the view
// renders from structuredContent and a text-only host reads as text.
type TodoList struct {
	Items []Todo `json:"items"`
}

// Todos is a to-do list with a view: ShowTodos shows it, the view's buttons
// call ToggleTodo (visible to the app only) and its form calls AddTodo.
type Todos struct {
	mu    sync.Mutex
	items []Todo
	next  int
}

// NewTodos returns a list with a few items.
func NewTodos(texts ...string) *Todos {
	t := &Todos{}
	for _, text := range texts {
		t.add(text)
	}
	return t
}

// Declare declares the view and the tools that show it.
func (t *Todos) Declare(d *sake.Declarations) {
	d.View(sake.NewViewFile(ViewURI, viewFS, "view.html").
		Title("To-do list").
		Description("The to-do list, with a button to mark each item done.").
		PrefersBorder(true))
	d.Tool("ShowTodos").Title("Show the to-do list").
		Description("Shows the to-do list: each item with its id and whether it is done.").
		ReadOnly().View(ViewURI)
	d.Tool("AddTodo").Title("Add a to-do").
		Description("Adds an item to the to-do list and shows the list.").
		View(ViewURI)
	d.Tool("ToggleTodo").Title("Mark a to-do done or not done").
		Description("Flips whether the item is done; called by the list's buttons.").
		Idempotent().View(ViewURI).Visibility(sake.VisibleToApp)
}

// AddArgs are the arguments of AddTodo.
type AddArgs struct {
	Text string `json:"text" jsonschema:"description=What to do,minLength=1,maxLength=200"`
}

// ToggleArgs are the arguments of ToggleTodo.
type ToggleArgs struct {
	ID int `json:"id" jsonschema:"description=The item's id,minimum=1"`
}

// ShowTodos returns the list.
func (t *Todos) ShowTodos(ctx *sake.Context) (*sake.ToolResult, error) {
	return t.result(), nil
}

// AddTodo adds an item.
func (t *Todos) AddTodo(ctx *sake.Context, a AddArgs) (*sake.ToolResult, error) {
	t.mu.Lock()
	if len(t.items) >= MaxTodos {
		t.mu.Unlock()
		return nil, fmt.Errorf("the list is full (%d items): mark some done and start a new list", MaxTodos)
	}
	t.add(a.Text)
	t.mu.Unlock()
	return t.result(), nil
}

// ToggleTodo flips an item's done flag.
func (t *Todos) ToggleTodo(ctx *sake.Context, a ToggleArgs) (*sake.ToolResult, error) {
	t.mu.Lock()
	found := false
	for i := range t.items {
		if t.items[i].ID == a.ID {
			t.items[i].Done = !t.items[i].Done
			found = true
		}
	}
	t.mu.Unlock()
	if !found {
		return nil, fmt.Errorf("there is no to-do %d: call show_todos for the ids", a.ID)
	}
	return t.result(), nil
}

// Snapshot returns a copy of the items.
func (t *Todos) Snapshot() []Todo {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Todo{}, t.items...)
}

func (t *Todos) add(text string) {
	t.next++
	t.items = append(t.items, Todo{ID: t.next, Text: text})
}

// result is the list as a tool result: text for the model and for hosts
// without views, structuredContent for the view.
func (t *Todos) result() *sake.ToolResult {
	items := t.Snapshot()
	var b strings.Builder
	done := 0
	for _, it := range items {
		mark := " "
		if it.Done {
			mark, done = "x", done+1
		}
		fmt.Fprintf(&b, "- [%s] %s (id %d)\n", mark, it.Text, it.ID)
	}
	fmt.Fprintf(&b, "%d of %d done.", done, len(items))
	return &sake.ToolResult{Content: []sake.Content{sake.Text(b.String())}, StructuredContent: TodoList{Items: items}}
}
