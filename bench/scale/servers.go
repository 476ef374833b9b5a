package main

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/plug"
)

// echoIn is the argument of every echo tool.
type echoIn struct {
	Text string `json:"text"`
}

// The nested argument: 31 fields over three levels.
type address struct {
	Street  string `json:"street"`
	City    string `json:"city"`
	Zip     string `json:"zip"`
	Country string `json:"country"`
}

type item struct {
	SKU   string   `json:"sku"`
	Qty   int      `json:"qty"`
	Price float64  `json:"price"`
	Tags  []string `json:"tags,omitempty"`
}

type order struct {
	ID       string  `json:"id"`
	Email    string  `json:"email"`
	Name     string  `json:"name"`
	Age      int     `json:"age"`
	Active   bool    `json:"active"`
	Billing  address `json:"billing"`
	Shipping address `json:"shipping"`
	Items    []item  `json:"items"`
	Notes    string  `json:"notes,omitempty"`
	When     string  `json:"when"`
	Priority string  `json:"priority"`
	Score    float64 `json:"score"`
}

// orderJSON is the nested argument sent; the tool answers with
// items[1].sku.
const orderJSON = `{"id":"6f1c2b9e-1111-4a2b-9c3d-123456789abc","email":"a@example.com","name":"Ana","age":33,"active":true,` +
	`"billing":{"street":"Rua A","city":"Lisboa","zip":"12345","country":"PT"},"shipping":{"street":"Rue B","city":"Paris","zip":"75001","country":"FR"},` +
	`"items":[{"sku":"x1","qty":2,"price":3.5,"tags":["a","b"]},{"sku":"x2","qty":1,"price":10}],"when":"2026-01-02T03:04:05Z","priority":"high","score":0.5}`

const orderAnswer = "x2"

// toolName is the name of the i-th tool of a server with many.
func toolName(i int) string { return fmt.Sprintf("tool_%05d", i) }

// peer builds one library's server with n echo tools (named by toolName,
// plus "echo" and "order"), and its HTTP handler for each era.
type peer struct {
	name  string
	build func(n int) (legacy, modern http.Handler)
	// register builds a server with n tools and makes it ready to list
	// them, for the registration timing.
	register func(n int)
}

var peers = []peer{
	{name: "sake", build: buildSake, register: func(n int) { newSake(n, false) }},
	{name: "mcp-go", build: buildMCPGo, register: func(n int) { newMCPGo(n) }},
	{name: "go-sdk", build: buildGoSDK, register: func(n int) { newGoSDK(n) }},
	{name: "floor", build: buildFloor, register: func(int) {}},
}

// compared are the indexes in peers of the libraries Sake is compared
// with.
var compared = []int{1, 2}

// floorIndex is the index in peers of the floor.
const floorIndex = 3

// --- sake

func newSake(n int, extra bool) *sake.Server {
	s := sake.MustNew(nil, sake.Name("sake-scale", "1.0.0"))
	for i := range n {
		if err := s.AddTool(sake.NewTypedTool(toolName(i), sakeEcho).Description("Echoes its text.")); err != nil {
			panic(err)
		}
	}
	if extra {
		if err := s.AddTool(
			sake.NewTypedTool("echo", sakeEcho).Description("Echoes its text."),
			sake.NewTypedTool("order", func(_ *sake.Context, o order) (string, error) { return o.Items[1].SKU, nil }),
		); err != nil {
			panic(err)
		}
	}
	// The registry is rebuilt by the first request after a change: make
	// one, so that the timing includes it.
	s.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), nil)
	return s
}

func sakeEcho(_ *sake.Context, a echoIn) (string, error) { return a.Text, nil }

func buildSake(n int) (http.Handler, http.Handler) {
	h := plug.New(newSake(n, true))
	return h, h
}

// --- mcp-go

func newMCPGo(n int) *mcpgoserver.MCPServer {
	s := mcpgoserver.NewMCPServer("mcpgo-scale", "1.0.0", mcpgoserver.WithToolCapabilities(true))
	for i := range n {
		s.AddTool(mcpgo.NewTool(toolName(i), mcpgo.WithDescription("Echoes its text."), mcpgo.WithInputSchema[echoIn]()),
			mcpgo.NewTypedToolHandler(mcpgoEcho))
	}
	return s
}

func mcpgoEcho(_ context.Context, _ mcpgo.CallToolRequest, in echoIn) (*mcpgo.CallToolResult, error) {
	return mcpgo.NewToolResultText(in.Text), nil
}

func buildMCPGo(n int) (http.Handler, http.Handler) {
	s := newMCPGo(n)
	s.AddTool(mcpgo.NewTool("echo", mcpgo.WithDescription("Echoes its text."), mcpgo.WithInputSchema[echoIn]()),
		mcpgo.NewTypedToolHandler(mcpgoEcho))
	s.AddTool(mcpgo.NewTool("order", mcpgo.WithInputSchema[order]()),
		mcpgo.NewTypedToolHandler(func(_ context.Context, _ mcpgo.CallToolRequest, o order) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(o.Items[1].SKU), nil
		}))
	h := mcpgoserver.NewStreamableHTTPServer(s)
	return h, h
}

// --- go-sdk

// gosdkSchemas is shared by every go-sdk server, as sake shares its
// schemas across servers.
var gosdkSchemas = sync.OnceValue(gosdk.NewSchemaCache)

func newGoSDK(n int) *gosdk.Server {
	s := gosdk.NewServer(&gosdk.Implementation{Name: "gosdk-scale", Version: "1.0.0"},
		&gosdk.ServerOptions{SchemaCache: gosdkSchemas()})
	for i := range n {
		gosdk.AddTool(s, &gosdk.Tool{Name: toolName(i), Description: "Echoes its text."}, gosdkEcho)
	}
	return s
}

func gosdkEcho(_ context.Context, _ *gosdk.CallToolRequest, in echoIn) (*gosdk.CallToolResult, any, error) {
	return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: in.Text}}}, nil, nil
}

func buildGoSDK(n int) (http.Handler, http.Handler) {
	s := newGoSDK(n)
	gosdk.AddTool(s, &gosdk.Tool{Name: "echo", Description: "Echoes its text."}, gosdkEcho)
	gosdk.AddTool(s, &gosdk.Tool{Name: "order"}, func(_ context.Context, _ *gosdk.CallToolRequest, o order) (*gosdk.CallToolResult, any, error) {
		return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: o.Items[1].SKU}}}, nil, nil
	})
	get := func(*http.Request) *gosdk.Server { return s }
	return gosdk.NewStreamableHTTPHandler(get, nil),
		gosdk.NewStreamableHTTPHandler(get, &gosdk.StreamableHTTPOptions{Stateless: true})
}
