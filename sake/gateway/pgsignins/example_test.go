package pgsignins_test

import (
	"context"
	"log"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/gateway/pgsignins"
	"github.com/sakemcp/sake-go/sake/gateway/usertokens"
	"github.com/sakemcp/sake-go/sake/gateway/usertokens/pgusertokens"
)

// Two or more gateways on one database, behind a balancer without
// affinity: the users' tokens and the sign-ins in progress are shared,
// so a sign-in's callback may land on any of them.
func Example() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	tokens, err := pgusertokens.New(ctx, pool)
	if err != nil {
		log.Fatal(err)
	}
	keys, err := usertokens.KeyFromEnv(gateway.TokenKeyEnv)
	if err != nil {
		log.Fatal(err)
	}
	vault, err := usertokens.New(tokens, keys...)
	if err != nil {
		log.Fatal(err)
	}
	signIns, err := pgsignins.New(ctx, pool, pgsignins.MaxOpen(5000))
	if err != nil {
		log.Fatal(err)
	}
	cfg, err := gateway.LoadConfig("mcp.json")
	if err != nil {
		log.Fatal(err)
	}
	g, err := gateway.New(ctx, cfg, gateway.UserTokens(vault), gateway.PublicURL("https://mcp.example.com"),
		gateway.PendingSignIns(signIns))
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
}
