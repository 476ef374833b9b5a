package client_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/plug"
)

type greeter struct{}

type greetIn struct {
	Name string `json:"name"`
}

func (greeter) Greet(_ *sake.Context, a greetIn) (string, error) {
	return fmt.Sprintf("Hello, %s!", a.Name), nil
}

func Example() {
	srv := sake.MustNew(greeter{})
	h := plug.New(srv)
	defer h.Close()
	ts := httptest.NewServer(h)
	defer ts.Close()

	ctx := context.Background()
	c, err := client.Connect(ctx, client.HTTP(ts.URL, nil))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	res, err := c.CallTool(ctx, "greet", map[string]string{"name": "Ada"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Era(), res.Text())
	// Output: modern Hello, Ada!
}

// A command-line program run where no browser is at hand (over SSH) signs
// its user in with the device flow: it shows a page and a code to type
// there on another device, and the client polls until they have.
func ExampleOAuthConfig_device() {
	oauth := client.OAuth(client.OAuthConfig{
		ClientName: "notes-cli",
		Device: func(_ context.Context, code client.DeviceCode) error {
			fmt.Printf("Open %s and type the code %s\n", code.VerificationURI, code.UserCode)
			return nil
		},
	})
	c, err := client.Connect(context.Background(), client.HTTP("https://notes.example.com/mcp", nil, client.WithAuthorizer(oauth)))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
}
