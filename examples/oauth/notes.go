package main

import (
	"fmt"
	"sync"
	"time"

	"github.com/sakemcp/sake-go/sake"
)

// MFA is the authentication context class of a sign-in with the one-time
// code; Password is that of a password-only sign-in.
const (
	MFA      = "urn:sake:mfa"
	Password = "urn:sake:pwd"
)

// maxNotes bounds the notes per person.
const maxNotes = 100

// Notes keeps each person's notes.
type Notes struct {
	mu    sync.Mutex
	notes map[string][]string
}

// NewNotes returns empty notes.
func NewNotes() *Notes { return &Notes{notes: map[string][]string{}} }

// Declare says what each tool needs.
func (n *Notes) Declare(d *sake.Declarations) {
	d.Tool("Whoami").Description("Says who you are signed in as and how.").ReadOnly()
	d.Tool("ListNotes").Description("Lists your notes.").Scopes("notes:read").ReadOnly()
	d.Tool("AddNote").Description("Adds a note.").Scopes("notes:write")
	d.Tool("DeleteAllNotes").Description("Deletes all your notes; needs a recent multi-factor sign-in.").
		Scopes("notes:write").Destructive(true).Authentication([]string{MFA}, 10*time.Minute)
}

// Whoami describes the caller.
func (n *Notes) Whoami(ctx *sake.Context) (string, error) {
	id := ctx.Identity()
	if id == nil {
		return "anonymous", nil
	}
	return fmt.Sprintf("subject=%s client=%s scopes=%v acr=%s", id.Subject, id.ClientID, id.Scopes, id.ACR), nil
}

// ListNotes lists the caller's notes.
func (n *Notes) ListNotes(ctx *sake.Context) ([]string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string{}, n.notes[ctx.Identity().Owner()]...), nil
}

// NoteArgs are add_note's arguments.
type NoteArgs struct {
	Text string `json:"text" jsonschema:"minLength=1,maxLength=500"`
}

// AddNote adds a note for the caller.
func (n *Notes) AddNote(ctx *sake.Context, a NoteArgs) (string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	o := ctx.Identity().Owner()
	if len(n.notes[o]) >= maxNotes {
		return "", fmt.Errorf("you have %d notes already: delete some first", maxNotes)
	}
	n.notes[o] = append(n.notes[o], a.Text)
	return fmt.Sprintf("Noted (%d notes).", len(n.notes[o])), nil
}

// DeleteAllNotes deletes the caller's notes.
func (n *Notes) DeleteAllNotes(ctx *sake.Context) (string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	o := ctx.Identity().Owner()
	k := len(n.notes[o])
	delete(n.notes, o)
	return fmt.Sprintf("Deleted %d notes.", k), nil
}
