package gateway_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/gateway/usertokens"
)

// A per-user entry calls its server as each caller, with their own
// token: the gateway needs a vault for the tokens and its public URL,
// where the sign-ins come back.
func ExampleUserTokens() {
	cfg, err := gateway.ParseConfig([]byte(`{"mcpServers": {
		"tracker": {"url": "https://tracker.example.com/mcp", "oauth": {"perUser": true}}
	}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	if _, err := gateway.New(ctx, cfg); err != nil {
		fmt.Println("without a vault:", err)
	}
	key := make([]byte, usertokens.KeySize) // in production: usertokens.KeyFromEnv(gateway.TokenKeyEnv)
	vault, err := usertokens.New(usertokens.Memory(0, 0), key)
	if err != nil {
		fmt.Println(err)
		return
	}
	g, err := gateway.New(ctx, cfg, gateway.UserTokens(vault), gateway.PublicURL("https://gateway.example.com"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close()
	http.Handle(gateway.CallbackPath, g.SignInHandler())
	fmt.Println("served:", g.Status()[0].Connected)
	// Output:
	// without a vault: gateway: "tracker" signs each caller in ("perUser"): give the gateway UserTokens and PublicURL (sake gateway: $SAKE_GATEWAY_TOKEN_KEY and -public-url)
	// served: true
}
