package pgusertokens_test

import (
	"context"
	"log"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/gateway/usertokens"
	"github.com/sakemcp/sake-go/sake/gateway/usertokens/pgusertokens"
)

// Every replica of a gateway opens the same database and the same key
// (`openssl rand -base64 32`, in GATEWAY_TOKEN_KEY): a user signed in to
// a remote through one replica calls it as themselves through the others.
func Example() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	store, err := pgusertokens.New(ctx, pool) // creates sake_user_tokens once
	if err != nil {
		log.Fatal(err)
	}
	keys, err := usertokens.KeyFromEnv("GATEWAY_TOKEN_KEY")
	if err != nil {
		log.Fatal(err)
	}
	vault, err := usertokens.New(store, keys...)
	if err != nil {
		log.Fatal(err)
	}
	// The OAuth flow of one user keeps their tokens in the vault, sealed.
	_ = client.OAuth(client.OAuthConfig{Store: vault.For("ann")})

	// Now and then, forget the users not seen for 90 days.
	go func() {
		for range time.Tick(time.Hour) {
			if _, err := store.Sweep(ctx, 90*24*time.Hour); err != nil {
				log.Print(err)
			}
		}
	}()
}
