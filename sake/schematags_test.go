package sake_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// validTags uses every keyword invopop/jsonschema reads.
type validTags struct {
	Name    string   `json:"name" jsonschema:"title=Name,description=Who\\, exactly,minLength=1,maxLength=50,pattern=^[a-z=]+$,format=email,default=ann,example=bob,enum=ann,enum=bob,readOnly=true,writeOnly=false"`
	Count   int      `json:"count,omitempty" jsonschema:"minimum=0,maximum=10,multipleOf=2,exclusiveMinimum=-1,exclusiveMaximum=11.5,default=2,enum=2,enum=4"`
	Tags    []string `json:"tags,omitempty" jsonschema:"minItems=1,maxItems=3,uniqueItems=true,enum=a,enum=b"`
	Flag    bool     `json:"flag,omitempty" jsonschema:"default=true"`
	Either  string   `json:"either,omitempty" jsonschema:"required,nullable,oneof_type=string;null,anchor=x"`
	Skipped string   `json:"skipped,omitempty" jsonschema:"-"`
	Ignored string   `json:"-" jsonschema:"anything at all"`
	Empty   string   `json:"empty,omitempty" jsonschema:""`
}

type validServer struct{}

func (validServer) Check(ctx *sake.Context, a validTags) (string, error) { return "", nil }

func TestValidSchemaTagsKeepWorking(t *testing.T) {
	t.Parallel()
	c := saketest.Connect(t, validServer{})
	tools, err := c.ListTools()
	if err != nil {
		t.Fatal(err)
	}
	schema := string(tools[0].InputSchema)
	for _, want := range []string{`"description":"Who, exactly"`, `"minLength":1`, `"maximum":10`, `"uniqueItems":true`, `"default":true`} {
		if !strings.Contains(schema, want) {
			t.Errorf("schema lacks %s: %s", want, schema)
		}
	}
}

type proseTag struct {
	City string `json:"city" jsonschema:"City or location"`
}

type proseWithComma struct {
	City string `json:"city" jsonschema:"City, or location"`
}

type typoKey struct {
	Units string `json:"units" jsonschema:"descripton=Units"`
}

type typoWord struct {
	Units string `json:"units" jsonschema:"requird"`
}

type badNumber struct {
	N int `json:"n" jsonschema:"minimum=one"`
}

type missingValue struct {
	Tags []string `json:"tags" jsonschema:"uniqueItems"`
}

type nestedBad struct {
	Inner []*proseTag `json:"inner"`
}

type proseServer struct{}

func (proseServer) Weather(ctx *sake.Context, a proseTag) (string, error)          { return "", nil }
func (proseServer) Comma(ctx *sake.Context, a proseWithComma) (string, error)      { return "", nil }
func (proseServer) TypoKey(ctx *sake.Context, a typoKey) (string, error)           { return "", nil }
func (proseServer) TypoWord(ctx *sake.Context, a typoWord) (string, error)         { return "", nil }
func (proseServer) BadNumber(ctx *sake.Context, a badNumber) (string, error)       { return "", nil }
func (proseServer) MissingValue(ctx *sake.Context, a missingValue) (string, error) { return "", nil }
func (proseServer) Nested(ctx *sake.Context, a nestedBad) (string, error)          { return "", nil }
func (proseServer) Output(ctx *sake.Context) (proseTag, error)                     { return proseTag{}, nil }

func TestUnknownSchemaTagIsAConstructionError(t *testing.T) {
	t.Parallel()
	_, err := sake.New(proseServer{})
	var ce *sake.ConstructionError
	if !errors.As(err, &ce) {
		t.Fatalf("got %v, want a *ConstructionError", err)
	}
	msg := err.Error()
	for _, want := range []string{
		`method Weather: field proseTag.City: jsonschema:"City or location" is not a list of keywords; for a description write jsonschema:"description=City or location"`,
		`method Comma: field proseWithComma.City: jsonschema:"City, or location" is not a list of keywords; for a description write jsonschema:"description=City\\, or location"`,
		`method TypoKey: field typoKey.Units: jsonschema:"descripton=Units": unknown key "descripton" (did you mean description?)`,
		`method TypoWord: field typoWord.Units: jsonschema:"requird": unknown keyword "requird" (did you mean required?)`,
		`method BadNumber: field badNumber.N: jsonschema:"minimum=one": minimum=one is not a number (for example minimum=1)`,
		`method MissingValue: field missingValue.Tags: jsonschema:"uniqueItems": uniqueItems needs a value: write uniqueItems=true`,
		`method Nested: field proseTag.City: jsonschema:"City or location"`,
		`method Output: result: field proseTag.City`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error lacks\n  %s\ngot:\n%s", want, msg)
		}
	}
	if len(ce.Problems) != 8 {
		t.Errorf("%d problems, want 8: %q", len(ce.Problems), ce.Problems)
	}
}

func TestUnknownSchemaTagRefusedByAddTool(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(nil)
	err := srv.AddTool(sake.NewTool("weather", func(ctx *sake.Context, a proseTag) (string, error) { return "", nil }))
	if err == nil || !strings.Contains(err.Error(), `jsonschema:"description=City or location"`) {
		t.Fatalf("AddTool: %v", err)
	}
	c := saketest.Connect(t, srv)
	if tools, err := c.ListTools(); err != nil || len(tools) != 0 {
		t.Errorf("tools %v, %v: the refused tool was added", tools, err)
	}
}
