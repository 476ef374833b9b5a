package sake_test

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// documented's docs are registered the way a generated file does it.
type documented struct{}

type lookupArgs struct {
	City  string `json:"city"`
	Units string `json:"units,omitempty" jsonschema:"description=From the tag"`
	Lang  string `json:"lang,omitempty" jsonschema_description:"From the other tag"`
	Bare  string `json:"bare,omitempty"`
	Where place  `json:"where"`
}

type place struct {
	Lat float64 `json:"lat"`
}

type lookupResult struct {
	Summary string `json:"summary"`
}

type greetArgs struct {
	Name string `json:"name"`
}

func (documented) Lookup(ctx *sake.Context, a lookupArgs) (lookupResult, error) {
	return lookupResult{}, nil
}
func (documented) Declared(ctx *sake.Context) (string, error)     { return "", nil }
func (documented) Undocumented(ctx *sake.Context) (string, error) { return "", nil }
func (documented) Readme(ctx *sake.Context) (string, error)       { return "", nil }
func (documented) Greeting(ctx *sake.Context, a greetArgs) (string, error) {
	return "", nil
}

func (documented) Declare(d *sake.Declarations) {
	d.Tool("Declared").Description("From Declare")
	d.Resource("Readme", "docs://readme")
	d.Prompt("Greeting")
}

func init() {
	sake.RegisterDocs[documented](sake.Docs{Methods: map[string]string{
		"Lookup":   "Lookup finds the weather.",
		"Declared": "Declared loses to Declare.",
		"Readme":   "Readme is the manual.",
		"Greeting": "Greeting greets.",
	}})
	sake.RegisterDocs[*lookupArgs](sake.Docs{Fields: map[string]string{
		"City":  "City is where.",
		"Units": "Units loses to the tag.",
		"Lang":  "Lang loses to the other tag.",
	}})
	sake.RegisterDocs[place](sake.Docs{Fields: map[string]string{"Lat": "Lat is the latitude."}})
	sake.RegisterDocs[lookupResult](sake.Docs{Fields: map[string]string{"Summary": "Summary says it in words."}})
	sake.RegisterDocs[greetArgs](sake.Docs{Fields: map[string]string{"Name": "Name is who to greet."}})
}

func TestRegisteredDocsBecomeDescriptions(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, documented{}, opts...)
		tools, err := c.ListTools()
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]protocol.ToolInfo{}
		for _, tl := range tools {
			byName[tl.Name] = tl
		}
		for name, want := range map[string]string{
			"lookup":       "Lookup finds the weather.",
			"declared":     "From Declare",
			"undocumented": "",
		} {
			if got := byName[name].Description; got != want {
				t.Errorf("tool %s: description %q, want %q", name, got, want)
			}
		}
		props := properties(t, byName["lookup"].InputSchema)
		for name, want := range map[string]string{
			"city":  "City is where.",
			"units": "From the tag",
			"lang":  "From the other tag",
			"bare":  "",
		} {
			if got := props[name].Description; got != want {
				t.Errorf("property %s: description %q, want %q", name, got, want)
			}
		}
		if got := props["where"].Properties["lat"].Description; got != "Lat is the latitude." {
			t.Errorf("nested property lat: description %q", got)
		}
		if strings.Contains(string(byName["undocumented"].InputSchema), "description") {
			t.Errorf("a tool without docs has descriptions: %s", byName["undocumented"].InputSchema)
		}
		if got := properties(t, byName["lookup"].OutputSchema)["summary"].Description; got != "Summary says it in words." {
			t.Errorf("output property summary: description %q", got)
		}
		var root struct {
			Description *string `json:"description"`
		}
		_ = json.Unmarshal(byName["lookup"].InputSchema, &root)
		if root.Description != nil {
			t.Errorf("the input schema's root has a description: %s", byName["lookup"].InputSchema)
		}

		resources, err := c.ListResources()
		if err != nil {
			t.Fatal(err)
		}
		if len(resources) != 1 || resources[0].Description != "Readme is the manual." {
			t.Errorf("resources: %+v", resources)
		}
		prompts, err := c.ListPrompts()
		if err != nil {
			t.Fatal(err)
		}
		if len(prompts) != 1 || prompts[0].Description != "Greeting greets." ||
			len(prompts[0].Arguments) != 1 || prompts[0].Arguments[0].Description != "Name is who to greet." {
			t.Errorf("prompts: %+v", prompts)
		}
	})
}

type schemaProperty struct {
	Description string                    `json:"description"`
	Properties  map[string]schemaProperty `json:"properties"`
}

func properties(t *testing.T, schema json.RawMessage) map[string]schemaProperty {
	t.Helper()
	var s schemaProperty
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatalf("%v: %s", err, schema)
	}
	return s.Properties
}

// embedding serves documented's methods, promoted.
type embedding struct {
	documented
}

func TestRegisteredDocsOfPromotedMethods(t *testing.T) {
	t.Parallel()
	c := saketest.Connect(t, &embedding{})
	tools, err := c.ListTools()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tl := range tools {
		if tl.Name == "lookup" {
			found = true
			if tl.Description != "Lookup finds the weather." {
				t.Errorf("promoted lookup: description %q", tl.Description)
			}
		}
	}
	if !found {
		t.Errorf("no tool lookup in %+v", tools)
	}
}

type lateDocs struct{}

type lateArgs struct {
	Who string `json:"who"`
}

func (lateDocs) Hello(ctx *sake.Context, a lateArgs) (string, error) { return "", nil }

type earlyDocs struct{}

// Not parallel: it replaces the default logger.
func TestRegisterDocsTooLateWarns(t *testing.T) {
	var logs strings.Builder
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	defer slog.SetDefault(prev)

	sake.RegisterDocs[earlyDocs](sake.Docs{})
	sake.MustNew(lateDocs{})
	if logs.Len() != 0 {
		t.Fatalf("an early registration warned: %s", logs.String())
	}
	sake.RegisterDocs[lateDocs](sake.Docs{Methods: map[string]string{"Hello": "Hello greets."}})
	sake.RegisterDocs[*lateArgs](sake.Docs{Fields: map[string]string{"Who": "Who is greeted."}})
	for _, want := range []string{
		"RegisterDocs[sake_test.lateDocs] comes after a server using sake_test.lateDocs was built",
		"RegisterDocs[sake_test.lateArgs] comes after",
	} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("no warning %q: %q", want, logs.String())
		}
	}
}
