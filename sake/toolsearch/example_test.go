package toolsearch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
	"github.com/sakemcp/sake-go/sake/toolsearch"
)

type repoArgs struct {
	Repo  string `json:"repo" jsonschema:"description=owner/name of the repository"`
	Title string `json:"title,omitempty"`
}

// Example replaces a server's tools with search_tools and call_tool,
// keeping help listed.
func Example() {
	search, err := toolsearch.New(toolsearch.Options{AlwaysList: []string{"help"}})
	if err != nil {
		log.Fatal(err)
	}
	srv := sake.MustNew(nil, sake.Use(search.Middleware()))
	reply := func(text string) func(*sake.Context, repoArgs) (string, error) {
		return func(_ *sake.Context, a repoArgs) (string, error) { return text + " " + a.Repo, nil }
	}
	err = srv.AddTool(
		sake.NewTool("create_issue", reply("issue opened in")).Description("Opens a new issue in a repository."),
		sake.NewTool("merge_pull_request", reply("merged into")).Description("Merges a pull request."),
		sake.NewTool("list_branches", reply("branches of")).Description("Lists the branches of a repository."),
		sake.NewTool("help", reply("ask about")).Description("Explains this server."),
	)
	if err != nil {
		log.Fatal(err)
	}

	t := &exampleT{}
	defer t.end()
	c := saketest.Connect(t, srv)
	tools, _ := c.ListTools()
	for _, t := range tools {
		fmt.Println("listed:", t.Name)
	}

	res, _ := c.CallTool("search_tools", map[string]any{"query": "report a bug", "limit": 1})
	var found struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	_ = json.Unmarshal([]byte(res.Text()), &found)
	fmt.Println("found:", found.Tools[0].Name)

	res, _ = c.CallTool("call_tool", map[string]any{"name": found.Tools[0].Name, "arguments": map[string]any{"repo": "acme/shop"}})
	fmt.Println(res.Text())
	// Output:
	// listed: help
	// listed: search_tools
	// listed: call_tool
	// found: create_issue
	// issue opened in acme/shop
}

// exampleT is the testing.TB saketest.Connect needs, outside a test.
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
