package sake_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
)

type badSignatures struct{}

func (badSignatures) NoResults(ctx *sake.Context)                        {}
func (badSignatures) TwoArgs(ctx *sake.Context, a, b string) error       { return nil }
func (badSignatures) ScalarArg(ctx *sake.Context, n int) (string, error) { return "", nil }
func (badSignatures) SecondNotError(ctx *sake.Context) (string, string)  { return "", "" }
func (badSignatures) Bytes(ctx *sake.Context) ([]byte, error)            { return nil, nil }
func (badSignatures) Variadic(ctx *sake.Context, xs ...string) error     { return nil }
func (badSignatures) Fine(ctx *sake.Context) (string, error)             { return "", nil }
func (badSignatures) NotATool(s string) string                           { return s }
func (badSignatures) ThreeResults(ctx context.Context) (int, int, error) { return 0, 0, nil }

func TestConstructionErrorNamesEveryMethod(t *testing.T) {
	t.Parallel()
	_, err := sake.New(badSignatures{})
	var ce *sake.ConstructionError
	if !errors.As(err, &ce) {
		t.Fatalf("got %v, want a *ConstructionError", err)
	}
	for _, m := range []string{"NoResults", "TwoArgs", "ScalarArg", "SecondNotError", "Bytes", "Variadic", "ThreeResults"} {
		if !strings.Contains(err.Error(), "method "+m+":") {
			t.Errorf("the error does not name %s:\n%v", m, err)
		}
	}
	for _, m := range []string{"Fine", "NotATool"} {
		if strings.Contains(err.Error(), "method "+m+":") {
			t.Errorf("the error names %s, which is fine:\n%v", m, err)
		}
	}
	if len(ce.Problems) != 7 {
		t.Errorf("%d problems, want 7:\n%v", len(ce.Problems), err)
	}
}

type misspelt struct{}

func (misspelt) Declare(d *sake.Declarations) {
	d.Tool("Greeet").Description("typo")
	d.Resource("Nothing", "x://y")
	d.Prompt("Greet")
}

func (misspelt) Greet(ctx *sake.Context) (string, error) { return "hi", nil }

func TestDeclarationOfUnknownMethod(t *testing.T) {
	t.Parallel()
	_, err := sake.New(misspelt{})
	if err == nil {
		t.Fatal("a misspelt method name was accepted")
	}
	for _, want := range []string{`tool method "Greeet"`, "did you mean Greet?", `resource method "Nothing"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

type clash struct{}

func (clash) Declare(d *sake.Declarations) { d.Tool("A").Name("same"); d.Tool("B").Name("same") }
func (clash) A(ctx *sake.Context) error    { return nil }
func (clash) B(ctx *sake.Context) error    { return nil }

type badName struct{}

func (badName) Declare(d *sake.Declarations) { d.Tool("A").Name("has space") }
func (badName) A(ctx *sake.Context) error    { return nil }

type badTemplate struct{}

type wrongVars struct {
	Name string `json:"name"`
}

func (badTemplate) Declare(d *sake.Declarations)                        { d.ResourceTemplate("Read", "files://{path}") }
func (badTemplate) Read(ctx *sake.Context, v wrongVars) (string, error) { return "", nil }

func TestOtherConstructionErrors(t *testing.T) {
	t.Parallel()
	for name, impl := range map[string]any{"duplicate names": clash{}, "bad name": badName{}, "template vars": badTemplate{}} {
		if _, err := sake.New(impl); err == nil {
			t.Errorf("%s: accepted", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

func TestSnakeCaseNames(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(&naming{})
	c := connect(t, s)
	tools, err := c.ListTools()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if got := strings.Join(names, ","); got != "get_http_status,list_open_issues,renamed,user_ids" {
		t.Errorf("names = %s", got)
	}
}

type naming struct{}

func (naming) Declare(d *sake.Declarations)           { d.Tool("Custom").Name("renamed") }
func (naming) ListOpenIssues(ctx *sake.Context) error { return nil }
func (naming) GetHTTPStatus(ctx *sake.Context) error  { return nil }
func (naming) UserIDs(ctx *sake.Context) error        { return nil }
func (naming) Custom(ctx *sake.Context) error         { return nil }

type badCompletions struct{}

type idVars struct {
	ID string `json:"id"`
}

func (badCompletions) Declare(d *sake.Declarations) {
	d.ResourceTemplate("Item", "items://{id}").Complete("nope", "ItemIDs").Complete("id", "ItemIdz")
	d.Prompt("Ask").Complete("topic", "ItemIDs")
}
func (badCompletions) Item(ctx *sake.Context, v idVars) (string, error) { return v.ID, nil }
func (badCompletions) ItemIDs(ctx *sake.Context, r sake.CompleteRequest) ([]string, error) {
	return nil, nil
}
func (badCompletions) Ask(ctx *sake.Context) (string, error) { return "", nil }

func TestCompletionDeclarationErrors(t *testing.T) {
	t.Parallel()
	_, err := sake.New(badCompletions{})
	if err == nil {
		t.Fatal("bad completions were accepted")
	}
	for _, want := range []string{`variable "nope"`, `argument "topic"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	s := sake.MustNew(nil)
	err = s.AddPrompt(sake.NewPrompt("p", func(ctx *sake.Context) (string, error) { return "", nil }).
		Complete("x", func(ctx *sake.Context, r sake.CompleteRequest) ([]string, error) { return nil, nil }))
	if err == nil || !strings.Contains(err.Error(), `argument "x"`) {
		t.Errorf("AddPrompt with an unknown argument: %v", err)
	}
	err = s.AddResource(sake.NewResourceTemplate("x://{y}", func(ctx *sake.Context, v map[string]string) (string, error) { return "", nil }).
		Complete("y", "not a function"))
	if err == nil {
		t.Error("AddResource with a completion that is not a function was accepted")
	}
}

type misspeltCompletion struct{}

func (misspeltCompletion) Declare(d *sake.Declarations) {
	d.ResourceTemplate("Item", "items://{id}").Complete("id", "ItemIdz")
}
func (misspeltCompletion) Item(ctx *sake.Context, v idVars) (string, error) { return v.ID, nil }
func (misspeltCompletion) ItemIDs(ctx *sake.Context, r sake.CompleteRequest) ([]string, error) {
	return nil, nil
}

func TestMisspeltCompletionMethod(t *testing.T) {
	t.Parallel()
	_, err := sake.New(misspeltCompletion{})
	if err == nil || !strings.Contains(err.Error(), `"ItemIdz"`) || !strings.Contains(err.Error(), "did you mean ItemIDs?") {
		t.Errorf("misspelt completion method: %v", err)
	}
}
