package sake_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// earlyGreeter is served by servers built in package-level variables,
// before the init function below registers its docs, as a package whose
// sake_gen.go registers them does.
type earlyGreeter struct{}

type earlyGreetArgs struct {
	Name string `json:"name"`
}

func (earlyGreeter) Hello(_ *sake.Context, a earlyGreetArgs) (string, error) {
	return "Hello, " + a.Name, nil
}

var (
	earlyServer = sake.MustNew(earlyGreeter{})
	earlyParent = func() *sake.Server {
		p := sake.MustNew(nil)
		if err := p.Mount("kid", sake.MustNew(earlyGreeter{})); err != nil {
			panic(err)
		}
		return p
	}()
)

func init() {
	sake.RegisterDocs[earlyGreeter](sake.Docs{Methods: map[string]string{"Hello": "Greets someone."}})
	sake.RegisterDocs[earlyGreetArgs](sake.Docs{Fields: map[string]string{"Name": "Who to greet."}})
}

// A server built in a package-level variable gets the descriptions that
// an init function registers after it was built, and so do the servers it
// is mounted into.
func TestServerBuiltAtPackageLevelGetsItsDocs(t *testing.T) {
	t.Parallel()
	for name, srv := range map[string]*sake.Server{"package-level": earlyServer, "mounted": earlyParent} {
		saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
			c := saketest.Connect(t, srv, opts...)
			tools, err := c.ListTools()
			if err != nil || len(tools) != 1 {
				t.Fatalf("%s: tools = %+v, %v", name, tools, err)
			}
			if tools[0].Description != "Greets someone." {
				t.Errorf("%s: the tool's description = %q, want the registered doc", name, tools[0].Description)
			}
			var schema struct {
				Properties map[string]struct {
					Description string `json:"description"`
				} `json:"properties"`
			}
			if err := json.Unmarshal(tools[0].InputSchema, &schema); err != nil || schema.Properties["name"].Description != "Who to greet." {
				t.Errorf("%s: the input schema = %s, want the field's doc as name's description", name, tools[0].InputSchema)
			}
			if res, err := c.CallTool(tools[0].Name, map[string]any{"name": "Ada"}); err != nil || res.Text() != "Hello, Ada" {
				t.Errorf("%s: call = %v, %v", name, res, err)
			}
			if !slices.Contains([]string{"hello", "kid_hello"}, tools[0].Name) {
				t.Errorf("%s: tool name = %q", name, tools[0].Name)
			}
		})
	}
}
