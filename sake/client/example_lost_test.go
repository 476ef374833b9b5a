package client_test

import (
	"context"
	"log"
	"os/exec"

	"github.com/sakemcp/sake-go/sake/client"
)

// A supervisor learns at once that a command's server exited, and why,
// instead of at its next request.
func ExampleClient_Lost() {
	ctx := context.Background()
	c, err := client.Connect(ctx, client.Command(exec.Command("quickstart")))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	<-c.Lost()
	log.Printf("the server is gone: %v; starting it again", c.LostErr())
}
