package sake_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
)

type Almanac struct{}

type TidesArgs struct {
	Port string `json:"port"`
	Days int    `json:"days,omitempty" jsonschema:"description=How many days (from the tag),minimum=1"`
}

func (Almanac) Tides(ctx *sake.Context, a TidesArgs) (string, error) {
	return "High water at noon in " + a.Port + ".", nil
}

// The file `sake gen` writes registers a package's doc comments in an
// init function, as this example does by hand; New uses them as
// descriptions where Declare and the tags give none.
func ExampleRegisterDocs() {
	sake.RegisterDocs[Almanac](sake.Docs{Methods: map[string]string{
		"Tides": "Tides tells when the tide is high.",
	}})
	sake.RegisterDocs[TidesArgs](sake.Docs{Fields: map[string]string{
		"Port": "Port is the harbour, by its name.",
		"Days": "Days loses to the tag.",
	}})

	srv := sake.MustNew(Almanac{})
	reply := srv.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{
		"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`), nil)
	var list struct {
		Result struct {
			Tools []protocol.ToolInfo `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(reply.Body, &list); err != nil {
		panic(err)
	}
	tool := list.Result.Tools[0]
	var schema struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(tool.InputSchema, &schema)
	fmt.Println(tool.Description)
	fmt.Println(schema.Properties["port"].Description)
	fmt.Println(schema.Properties["days"].Description)
	// Output:
	// Tides tells when the tide is high.
	// Port is the harbour, by its name.
	// How many days (from the tag)
}
