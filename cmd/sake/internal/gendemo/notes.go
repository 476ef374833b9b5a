// Package gendemo is a server whose descriptions come from its doc
// comments, through the file sake gen writes; the tests of sake gen read
// it.
package gendemo

//go:generate go run ../.. gen

import (
	"context"
	"strings"

	sk "github.com/sakemcp/sake-go/sake"
)

// Notes keeps notes in memory.
type Notes struct{}

// Declare makes About a resource and Summarize a prompt, and gives
// Forget its description.
func (*Notes) Declare(d *sk.Declarations) {
	d.Resource("About", "notes://about")
	d.Prompt("Summarize")
	d.Tool("Forget").Description("Forgets every note.")
}

// AddArgs are the arguments of add.
type AddArgs struct {
	// Text is the note itself.
	//
	// It is kept as written.
	Text string `json:"text"`
	// Tags sorts the note.
	Tags   []string `json:"tags,omitempty" jsonschema:"description=Words to find the note by"`
	Pinned bool     `json:"pinned,omitempty"` // Pinned keeps the note at the top.
	Where  Place    `json:"where,omitzero"`
	Plain  string   `json:"plain,omitempty"`
}

// Place is where a note was taken.
type Place struct {
	// City is the city's name, as the [Notes] user writes it.
	City string `json:"city"`
}

// Add stores a note and returns its number.
func (*Notes) Add(ctx *sk.Context, a AddArgs) (string, error) { return "1", nil }

// Search finds the notes that contain a word. It takes a standard
// context.
func (*Notes) Search(ctx context.Context, a SearchArgs) (string, error) {
	return strings.ToLower(a.Word), nil
}

// SearchArgs are the arguments of search.
type SearchArgs struct {
	// Word is what to look for.
	Word string `json:"word"`
}

func (*Notes) Undocumented(ctx *sk.Context) (string, error) { return "", nil }

// Forget is described by Declare, which wins.
func (*Notes) Forget(ctx *sk.Context) (string, error) { return "", nil }

// About says what the server keeps.
func (*Notes) About(ctx *sk.Context) (string, error) { return "Notes.", nil }

// Summarize asks for a summary of the notes.
func (*Notes) Summarize(ctx *sk.Context, a SummarizeArgs) (string, error) {
	return "Summarize in " + a.Style + ".", nil
}

// SummarizeArgs are the arguments of summarize.
type SummarizeArgs struct {
	// Style is how to write the summary.
	Style string `json:"style"`
}

// Format is a helper, not a component: its comment is not registered.
func (*Notes) Format(s string) string { return s }

// Box is generic: it is left out.
type Box[T any] struct {
	// Value is left out.
	Value T
}
