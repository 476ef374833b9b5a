package sake_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
)

// The nested argument of the scaling benchmarks: 31 fields over three
// levels, with formats, patterns, enums and bounds.
type benchAddress struct {
	Street  string `json:"street" jsonschema:"minLength=1"`
	City    string `json:"city"`
	Zip     string `json:"zip" jsonschema:"pattern=^[0-9]{5}$"`
	Country string `json:"country" jsonschema:"enum=PT,enum=FR,enum=DE"`
}

type benchItem struct {
	SKU   string   `json:"sku"`
	Qty   int      `json:"qty" jsonschema:"minimum=1"`
	Price float64  `json:"price" jsonschema:"minimum=0"`
	Tags  []string `json:"tags,omitempty"`
}

type benchOrder struct {
	ID       string       `json:"id" jsonschema:"format=uuid"`
	Email    string       `json:"email" jsonschema:"format=email"`
	Name     string       `json:"name" jsonschema:"maxLength=100"`
	Age      int          `json:"age" jsonschema:"minimum=0,maximum=150"`
	Active   bool         `json:"active"`
	Billing  benchAddress `json:"billing"`
	Shipping benchAddress `json:"shipping"`
	Items    []benchItem  `json:"items"`
	Notes    string       `json:"notes,omitempty"`
	When     string       `json:"when" jsonschema:"format=date-time"`
	Priority string       `json:"priority" jsonschema:"enum=low,enum=high"`
	Score    float64      `json:"score"`
}

const benchOrderJSON = `{"id":"6f1c2b9e-1111-4a2b-9c3d-123456789abc","email":"a@example.com","name":"Ana","age":33,"active":true,` +
	`"billing":{"street":"Rua A","city":"Lisboa","zip":"12345","country":"PT"},"shipping":{"street":"Rue B","city":"Paris","zip":"75001","country":"FR"},` +
	`"items":[{"sku":"x1","qty":2,"price":3.5,"tags":["a","b"]},{"sku":"x2","qty":1,"price":10}],"when":"2026-01-02T03:04:05Z","priority":"high","score":0.5}`

func benchCallServer(b *testing.B) *sake.Server {
	s := sake.MustNew(nil)
	err := s.AddTool(
		sake.NewTypedTool("echo", func(_ *sake.Context, a benchArgs) (string, error) { return a.Text, nil }),
		sake.NewTypedTool("order", func(_ *sake.Context, o benchOrder) (string, error) { return o.Items[1].SKU, nil }),
	)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkToolsCallArgs measures a modern tools/call through the
// dispatcher as its argument grows, and with the nested argument.
func BenchmarkToolsCallArgs(b *testing.B) {
	s := benchCallServer(b)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	cases := []struct{ name, tool, args string }{}
	for _, n := range []int{100, 10 << 10, 100 << 10, 1 << 20} {
		cases = append(cases, struct{ name, tool, args string }{fmt.Sprint(n), "echo", `{"text":"` + strings.Repeat("x", n) + `"}`})
	}
	cases = append(cases, struct{ name, tool, args string }{"nested", "order", benchOrderJSON})
	ctx := context.Background()
	for _, c := range cases {
		msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta + `,"name":"` + c.tool + `","arguments":` + c.args + `}}`)
		b.Run(c.name, func(b *testing.B) {
			in := &sake.Inbound{}
			b.SetBytes(int64(len(msg)))
			b.ReportAllocs()
			for b.Loop() {
				if r := s.Handle(ctx, msg, in); r.ErrorCode != 0 || strings.Contains(string(r.Body[:min(len(r.Body), 200)]), `"isError":true`) {
					b.Fatal(string(r.Body))
				}
			}
		})
	}
}

// BenchmarkToolsList1000 measures listing 1,000 tools in one page.
func BenchmarkToolsList1000(b *testing.B) {
	s := sake.MustNew(nil)
	for i := range 1000 {
		if err := s.AddTool(sake.NewTypedTool(fmt.Sprintf("tool_%04d", i), func(_ *sake.Context, a benchArgs) (string, error) { return a.Text, nil })); err != nil {
			b.Fatal(err)
		}
	}
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if r := s.Handle(ctx, msg, nil); strings.Count(string(r.Body), `"inputSchema"`) != 1000 {
			b.Fatal(string(r.Body[:200]))
		}
	}
}
