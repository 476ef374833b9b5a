package sake_test

import (
	"fmt"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// Two versions of one tool are served side by side: the list shows the
// highest, naming both, and a caller asks for the other in _meta
// (saketest's WithVersion, the client's client.WithVersion).
func ExampleToolDef_Version() {
	t := &exampleT{}
	defer t.end()

	quote := func(version string) *sake.ToolDef {
		return sake.NewTool("quote", func(*sake.Context) (string, error) { return "priced by " + version, nil }).Version(version)
	}
	srv := sake.MustNew(nil)
	fmt.Println(srv.AddTool(quote("1.4.2"), quote("2.0.0")))

	c := saketest.Connect(t, srv)
	tools, _ := c.ListTools()
	fmt.Println(tools[0].Name, tools[0].Meta[sake.MetaComponentVersion], tools[0].Meta[sake.MetaComponentVersions])
	res, _ := c.CallTool("quote", nil)
	fmt.Println(res)
	res, _ = c.WithVersion("1.4.2").CallTool("quote", nil)
	fmt.Println(res)
	_, err := c.WithVersion("3.0").CallTool("quote", nil)
	fmt.Println(err)

	srv.Disable(sake.Components{Tools: []string{"quote"}, Version: "2.0.0"})
	res, _ = c.CallTool("quote", nil)
	fmt.Println(res)
	// Output:
	// <nil>
	// quote 2.0.0 [2.0.0 1.4.2]
	// priced by 2.0.0
	// priced by 1.4.2
	// mcp error -32602: Unknown tool: quote (version 3.0; the versions served are 2.0.0, 1.4.2: ask for one of them, or leave out _meta["io.github.sakemcp/version"] for the highest)
	// priced by 1.4.2
}

// A VersionFilter serves a range of versions: of those it passes, lists
// show the highest.
func ExampleServer_FilterVersions() {
	t := &exampleT{}
	defer t.end()

	srv := sake.MustNew(nil)
	for _, v := range []string{"1.0", "2.1", "3.0"} {
		_ = srv.AddTool(sake.NewTool("report", func(*sake.Context) (string, error) { return "report " + v, nil }).Version(v))
	}
	fmt.Println(srv.FilterVersions(sake.VersionFilter{Range: ">=2.0 <3"}))
	c := saketest.Connect(t, srv)
	res, _ := c.CallTool("report", nil)
	fmt.Println(res)
	fmt.Println(srv.FilterVersions(sake.VersionFilter{Range: ">=2.0 <"}))
	// Output:
	// <nil>
	// report 2.1
	// sake: version range ">=2.0 <": < needs a version after it
}

func ExampleCompareVersions() {
	fmt.Println(sake.CompareVersions("1.10", "1.9"), sake.CompareVersions("1.0.0-rc.1", "1.0.0"), sake.CompareVersions("2025-01-31", "2025-02-01"))
	// Output: 1 -1 -1
}
