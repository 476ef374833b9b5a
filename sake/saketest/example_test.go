package saketest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

type Greeter struct{}

type GreetArgs struct {
	Name string `json:"name"`
}

func (Greeter) Greet(ctx *sake.Context, a GreetArgs) (string, error) {
	return "Hello, " + a.Name + "!", nil
}

// exampleT stands in for a test's *testing.T so that the examples run:
// in a test, pass t itself.
type exampleT struct {
	testing.TB
	cleanups []func()
}

func (t *exampleT) Helper()                           {}
func (t *exampleT) Name() string                      { return "Example" }
func (t *exampleT) Context() context.Context          { return context.Background() }
func (t *exampleT) Cleanup(fn func())                 { t.cleanups = append(t.cleanups, fn) }
func (t *exampleT) Failed() bool                      { return false }
func (t *exampleT) Log(args ...any)                   {}
func (t *exampleT) Logf(format string, args ...any)   {}
func (t *exampleT) Errorf(format string, args ...any) { fmt.Printf("FAIL: "+format+"\n", args...) }
func (t *exampleT) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

// end runs the cleanups, as testing does when a test ends.
func (t *exampleT) end() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}

// A test connects a client to the server in memory and calls it as a
// client would. Invalid arguments come back as a tool error naming the
// field.
func ExampleConnect() {
	t := &exampleT{}
	defer t.end()

	c := saketest.Connect(t, Greeter{})
	res, err := c.CallTool("greet", map[string]any{"name": "Rui"})
	fmt.Println(res, err)

	_, err = c.CallTool("greet", map[string]any{})
	var te *sake.ToolError
	fmt.Println(errors.As(err, &te), te.Result.IsError)
	// Output:
	// Hello, Rui! <nil>
	// true true
}

// Notes is gated by scopes: reading needs notes:read, writing notes:write.
type Notes struct{}

func (Notes) Declare(d *sake.Declarations) {
	d.Tool("Read").Scopes("notes:read")
	d.Tool("Write").Scopes("notes:read", "notes:write")
}

func (Notes) Read(ctx *sake.Context) (string, error)  { return "the notes", nil }
func (Notes) Write(ctx *sake.Context) (string, error) { return "written", nil }

// A client with Scopes carries a simulated access token: a component
// whose scopes it lacks answers with every scope it needs.
func ExampleScopes() {
	t := &exampleT{}
	defer t.end()

	reader := saketest.Connect(t, Notes{}, saketest.Subject("ana"), saketest.Scopes("notes:read"))
	res, err := reader.CallTool("read", nil)
	fmt.Println(res, err)

	_, err = reader.CallTool("write", nil)
	var se *protocol.InsufficientScopeError
	fmt.Println(errors.As(err, &se), se.Scopes)

	writer := saketest.Connect(t, Notes{}, saketest.Subject("ana"), saketest.Scopes("notes:read", "notes:write"))
	res, err = writer.CallTool("write", nil)
	fmt.Println(res, err)
	// Output:
	// the notes <nil>
	// true [notes:read notes:write]
	// written <nil>
}

// Interview asks the user for a name.
type Interview struct{}

type NameForm struct {
	Name string `json:"name"`
}

func (Interview) Ask(ctx *sake.Context) (string, error) {
	var f NameForm
	action, err := ctx.Elicit("who", "Who should be greeted?", &f)
	if err != nil || action != sake.Accept {
		return "no greeting", err
	}
	return "Hello, " + f.Name + "!", nil
}

// OnInput answers the server's questions as the user would, in both eras;
// the client records what it was asked.
func ExampleOnInput() {
	t := &exampleT{}
	defer t.end()

	for _, era := range []saketest.Option{saketest.ClientInfo("example", "1.0"), saketest.Legacy()} {
		c := saketest.Connect(t, Interview{}, era, saketest.OnInput(func(p protocol.ElicitRequest) protocol.ElicitResult {
			fmt.Println("asked:", p.Message)
			return saketest.Accept(map[string]any{"name": "Rui"})
		}))
		res, err := c.CallTool("ask", nil)
		fmt.Println(c.Session().ProtocolVersion, res, err)
		saketest.AssertAsked(t, c, "elicitation/create", map[string]any{"message": "Who should be greeted?"})
	}
	// Output:
	// asked: Who should be greeted?
	// 2026-07-28 Hello, Rui! <nil>
	// asked: Who should be greeted?
	// 2025-11-25 Hello, Rui! <nil>
}

// An answer that does not fit the requested schema never reaches the
// tool as a valid one: Elicit returns sake.ErrInvalidAnswer.
func ExampleAccept() {
	t := &exampleT{}
	defer t.end()

	c := saketest.Connect(t, Interview{}, saketest.Legacy(), saketest.OnInput(func(protocol.ElicitRequest) protocol.ElicitResult {
		return saketest.Accept(map[string]any{"nom": "Rui"})
	}))
	_, err := c.CallTool("ask", nil)
	fmt.Println(err)
	// Output:
	// sake: the accepted answer does not fit the requested schema: "who": name: is required
}

// Listen records what the server broadcasts; the assertions wait on the
// broadcast itself, for as long as WaitTimeout (or Listener.Within) says.
func ExampleListen() {
	t := &exampleT{}
	defer t.end()

	c := saketest.Connect(t, Greeter{})
	l := saketest.Listen(t, c)
	_ = c.Server().AddTool(sake.NewTool("echo", func(ctx *sake.Context, a GreetArgs) (string, error) { return a.Name, nil }))
	saketest.AssertListChanged(t, l, sake.ListTools)
	fmt.Println(l.Broadcasts()[0].List)
	// Output:
	// tools
}

// Tenants reads the caller's tenant from a claim of its token.
type Tenants struct{}

func (Tenants) Tenant(ctx *sake.Context) (string, error) {
	if id := ctx.Identity(); id != nil && id.Claims["tenant"] != nil {
		return fmt.Sprint(id.Claims["tenant"]), nil
	}
	return "", errors.New("no tenant: sign in with an account that has one")
}

// Claims puts claims of the application's own in the client's token, as
// an identity provider would.
func ExampleClaims() {
	t := &exampleT{}
	defer t.end()

	c := saketest.Connect(t, Tenants{}, saketest.Subject("ana"), saketest.Claims(map[string]any{"tenant": "acme"}))
	res, err := c.CallTool("tenant", nil)
	fmt.Println(res, err)
	// Output:
	// acme <nil>
}
