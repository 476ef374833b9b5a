package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

func names(t *testing.T, c *saketest.Client) string {
	t.Helper()
	tools, err := c.ListTools()
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, tl := range tools {
		n = append(n, tl.Name)
	}
	return strings.Join(n, ",")
}

func TestTodos(t *testing.T) {
	for _, era := range []struct {
		name string
		opt  saketest.Option
	}{{"modern", saketest.ClientInfo("test", "1")}, {"legacy", saketest.Legacy()}} {
		t.Run(era.name, func(t *testing.T) {
			t.Parallel()
			todos := NewTodos("Buy milk", "Write the report")
			srv := sake.MustNew(todos)

			plain := saketest.Connect(t, srv, era.opt)
			if got := names(t, plain); got != "add_todo,show_todos" {
				t.Errorf("a host without apps lists %s, want add_todo,show_todos", got)
			}
			res, err := plain.CallTool("show_todos", nil)
			if err != nil {
				t.Fatal(err)
			}
			if want := "- [ ] Buy milk (id 1)\n- [ ] Write the report (id 2)\n0 of 2 done."; res.Text() != want {
				t.Errorf("text for hosts without views = %q, want %q", res.Text(), want)
			}

			app := saketest.Connect(t, srv, era.opt, saketest.UI())
			if got := names(t, app); got != "add_todo,show_todos,toggle_todo" {
				t.Errorf("a host with apps lists %s", got)
			}
			v, err := app.View("show_todos")
			if err != nil {
				t.Fatal(err)
			}
			if v.URI != ViewURI || !strings.HasPrefix(v.HTML, "<!DOCTYPE html>") || v.Meta.PrefersBorder == nil || !*v.Meta.PrefersBorder || v.Meta.CSP != nil {
				t.Errorf("view = %s %q… meta %+v", v.URI, v.HTML[:20], v.Meta)
			}
			if !strings.Contains(v.HTML, `call("toggle_todo"`) {
				t.Error("the view's buttons do not call toggle_todo")
			}

			res, err = app.CallAppTool("toggle_todo", ToggleArgs{ID: 2})
			if err != nil {
				t.Fatal(err)
			}
			var list TodoList
			if err := res.DecodeStructured(&list); err != nil || len(list.Items) != 2 || !list.Items[1].Done || list.Items[0].Done {
				t.Errorf("after toggling 2: %+v (%v)", list, err)
			}
			if s := todos.Snapshot(); !s[1].Done {
				t.Errorf("the server's list did not change: %+v", s)
			}

			_, err = app.CallAppTool("toggle_todo", ToggleArgs{ID: 9})
			var te *sake.ToolError
			if !errors.As(err, &te) || !strings.Contains(err.Error(), "no to-do 9") {
				t.Errorf("toggling a missing item: %v", err)
			}
			if _, err := app.CallTool("add_todo", AddArgs{Text: ""}); !errors.As(err, &te) {
				t.Errorf("adding an empty item: %v, want an error result", err)
			}
			if s := todos.Snapshot(); len(s) != 2 {
				t.Errorf("refused calls changed the list: %+v", s)
			}
		})
	}
}

func TestTodosBounded(t *testing.T) {
	t.Parallel()
	todos := NewTodos()
	c := saketest.Connect(t, todos)
	for i := 0; i < MaxTodos; i++ {
		if _, err := c.CallTool("add_todo", AddArgs{Text: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.CallTool("add_todo", AddArgs{Text: "one more"}); err == nil || !strings.Contains(err.Error(), "full") {
		t.Errorf("adding past %d: %v", MaxTodos, err)
	}
	if n := len(todos.Snapshot()); n != MaxTodos {
		t.Errorf("%d items, want %d", n, MaxTodos)
	}
}
