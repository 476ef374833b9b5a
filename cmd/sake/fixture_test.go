package main

import (
	"fmt"
	"strings"

	"github.com/sakemcp/sake-go/sake"
)

// fixture is the server the tests inspect and call, in process over HTTP
// or as the test binary over stdio.
type fixture struct{}

func (f *fixture) Declare(d *sake.Declarations) {
	d.Tool("Echo").Description("Says the text back.").ReadOnly()
	d.Tool("Sum").Description("Adds two numbers.").Idempotent()
	d.Tool("Fail").Description("Always fails.")
	d.Tool("Picture").Description("Returns an image and a link.")
	d.Tool("AskName").Description("Asks the user's name.")
	d.Tool("SignIn").Description("Sends the user to a page.")
	d.Resource("Readme", "fixture://readme").MIMEType("text/markdown").Description("The readme.")
	d.ResourceTemplate("Item", "fixture://items/{id}").Description("One item.")
	d.Prompt("Review").Description("Reviews some code.")
}

// EchoArgs are the arguments of echo.
type EchoArgs struct {
	Text string `json:"text" jsonschema:"description=What to say back"`
	Case string `json:"case,omitempty" jsonschema:"enum=upper,enum=lower,default=lower"`
}

// Echo says the text back.
func (f *fixture) Echo(ctx *sake.Context, a EchoArgs) (string, error) {
	if a.Case == "upper" {
		return strings.ToUpper(a.Text), nil
	}
	return a.Text, nil
}

// SumArgs are the arguments of sum.
type SumArgs struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

// Total is the result of sum.
type Total struct {
	Total float64 `json:"total"`
}

// Sum adds.
func (f *fixture) Sum(ctx *sake.Context, a SumArgs) (Total, error) { return Total{a.A + a.B}, nil }

// Fail fails.
func (f *fixture) Fail(ctx *sake.Context) (string, error) {
	return "", fmt.Errorf("the disk is full: free some space and try again")
}

// Picture returns content that is not text.
func (f *fixture) Picture(ctx *sake.Context) ([]sake.Content, error) {
	return []sake.Content{
		sake.Text("a red dot:"),
		sake.Image([]byte{0x89, 'P', 'N', 'G'}, "image/png"),
		&sake.ResourceLink{URI: "fixture://readme", Name: "readme"},
	}, nil
}

// NameForm is what ask_name asks.
type NameForm struct {
	Name  string `json:"name" jsonschema:"description=Your name"`
	Age   int    `json:"age,omitempty" jsonschema:"description=Your age"`
	Admin bool   `json:"admin,omitempty"`
	Case  string `json:"case,omitempty" jsonschema:"enum=upper,enum=lower,default=lower"`
}

// AskName asks the user's name.
func (f *fixture) AskName(ctx *sake.Context) (string, error) {
	var form NameForm
	action, err := ctx.Elicit("name", "Who are you?", &form)
	if err != nil {
		return "", err
	}
	if action != sake.Accept {
		return "no answer: " + string(action), nil
	}
	return fmt.Sprintf("Hello, %s (%d, admin %v, %s)!", form.Name, form.Age, form.Admin, form.Case), nil
}

// Readme is the readme.
func (f *fixture) Readme(ctx *sake.Context) (string, error) { return "# Fixture\n", nil }

// ItemArgs name an item.
type ItemArgs struct {
	ID string `json:"id"`
}

// Item is one item.
func (f *fixture) Item(ctx *sake.Context, a ItemArgs) (string, error) { return "item " + a.ID, nil }

// ReviewArgs are the arguments of review.
type ReviewArgs struct {
	Code  string `json:"code"`
	Style string `json:"style,omitempty"`
}

// Review reviews code.
func (f *fixture) Review(ctx *sake.Context, a ReviewArgs) (string, error) {
	return "Review this code: " + a.Code, nil
}

// SignIn sends the user to a page.
func (f *fixture) SignIn(ctx *sake.Context) (string, error) {
	action, err := ctx.ElicitURL("sign-in", "Sign in to continue", "https://example.com/sign-in")
	if err != nil {
		return "", err
	}
	return "sign-in: " + string(action), nil
}
