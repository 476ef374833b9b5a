package plug_test

import (
	"log"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/plug"
)

// Greeter is an MCP server with one tool, greet.
type Greeter struct{}

// GreetArgs are the arguments of greet.
type GreetArgs struct {
	Name string `json:"name" jsonschema:"description=Who to greet"`
}

// Greet says hello.
func (Greeter) Greet(ctx *sake.Context, a GreetArgs) (string, error) {
	return "Hello, " + a.Name + "!", nil
}

// Mount the MCP endpoint on a chi router, next to the application's own
// routes. Both protocol eras are served at /mcp.
func Example() {
	srv := sake.MustNew(Greeter{}, sake.Name("greeter", "1.0.0"))
	h := plug.New(srv,
		plug.AllowedHosts("localhost", "mcp.example.com"),
		plug.MaxBodyBytes(1<<20),
	)
	defer h.Close()

	r := chi.NewRouter()
	r.Get("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	r.Mount("/mcp", h)

	httpServer := &http.Server{Addr: "127.0.0.1:8080", Handler: r}
	httpServer.RegisterOnShutdown(h.Close) // Shutdown waits for open streams; Close ends them
	log.Fatal(httpServer.ListenAndServe())
}
