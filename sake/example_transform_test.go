package sake_test

import (
	"fmt"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// A transform renames the forecast tool, re-describes an argument and
// hides another behind a fixed value: the model sees neither the old name
// nor days, and a caller that sends days anyway is refused.
func ExampleServer_Transform() {
	t := &exampleT{}
	defer t.end()

	srv := sake.MustNew(Weather{})
	err := srv.Transform(sake.Transform{
		Tool: "forecast",
		Name: "weekly_forecast",
		Args: map[string]sake.ArgTransform{
			"city": {Name: "town", Description: "The town, in English"},
			"days": {Value: 7},
		},
	})
	fmt.Println(err)

	c := saketest.Connect(t, srv)
	tools, _ := c.ListTools()
	fmt.Println(tools[0].Name, string(tools[0].InputSchema))
	res, _ := c.CallTool("weekly_forecast", map[string]any{"town": "Porto"})
	fmt.Println(res)
	_, err = c.CallTool("weekly_forecast", map[string]any{"town": "Porto", "days": 1})
	fmt.Println(err)
	_, err = c.CallTool("forecast", map[string]any{"city": "Porto"})
	fmt.Println(err)
	// Output:
	// <nil>
	// weekly_forecast {"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"town":{"type":"string","description":"The town, in English"}},"additionalProperties":false,"type":"object","required":["town"]}
	// Sunny in Porto for 7 days.
	// Invalid arguments for tool weekly_forecast: days: is not allowed (unknown property)
	// mcp error -32602: Unknown tool: forecast
}

// Disable takes components out of the server while it runs, by name or
// tag; Enable brings them back.
func ExampleServer_Disable() {
	t := &exampleT{}
	defer t.end()

	srv := sake.MustNew(nil)
	hello := func(*sake.Context) (string, error) { return "hello", nil }
	_ = srv.AddTool(sake.NewTool("greet", hello), sake.NewTool("beta_greet", hello).Tags("beta"))
	c := saketest.Connect(t, srv)

	srv.Disable(sake.Components{Tags: []string{"beta"}})
	tools, _ := c.ListTools()
	fmt.Println(len(tools), tools[0].Name)
	_, err := c.CallTool("beta_greet", nil)
	fmt.Println(err)

	srv.Enable(sake.Components{Tags: []string{"beta"}})
	tools, _ = c.ListTools()
	fmt.Println(len(tools))
	// Output:
	// 1 greet
	// mcp error -32602: Unknown tool: beta_greet
	// 2
}

// With PerCallerLists, each caller's tools/list holds only what its
// token's scopes allow, marked cacheScope "private".
func ExamplePerCallerLists() {
	t := &exampleT{}
	defer t.end()

	hello := func(*sake.Context) (string, error) { return "hello", nil }
	srv := sake.MustNew(nil, sake.PerCallerLists(nil))
	_ = srv.AddTool(sake.NewTool("greet", hello), sake.NewTool("admin_greet", hello).Scopes("admin"))

	for _, scopes := range [][]string{{}, {"admin"}} {
		c := saketest.Connect(t, srv, saketest.Scopes(scopes...))
		tools, _ := c.ListTools()
		var names []string
		for _, tl := range tools {
			names = append(names, tl.Name)
		}
		fmt.Println(scopes, names)
	}
	// Output:
	// [] [greet]
	// [admin] [admin_greet greet]
}
