package usertokens_test

import (
	"context"
	"fmt"
	"os"

	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/gateway/usertokens"
)

// A vault keeps each user's tokens sealed; For gives the OAuth flow of
// sake/client one user's store.
func Example() {
	os.Setenv("GATEWAY_TOKEN_KEY", "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=") // `openssl rand -base64 32`
	keys, err := usertokens.KeyFromEnv("GATEWAY_TOKEN_KEY")
	if err != nil {
		panic(err)
	}
	vault, err := usertokens.New(usertokens.Memory(0, 0), keys...)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	_ = vault.For("ann").Save(ctx, "https://crm.example/mcp", &client.Token{AccessToken: "ann's token"})

	ann, _ := vault.For("ann").Load(ctx, "https://crm.example/mcp")
	bob, _ := vault.For("bob").Load(ctx, "https://crm.example/mcp")
	fmt.Println(ann.AccessToken, bob == nil)

	// An OAuth flow signs a user in and keeps their token in the vault:
	_ = client.OAuth(client.OAuthConfig{Store: vault.For("ann")})
	// Output: ann's token true
}
