package sake_test

import (
	"fmt"

	"github.com/sakemcp/sake-go/sake"
)

// A tool that sends the user to a page and waits, on its own side, for
// them to be done there (here a channel a callback handler closes), then
// tells a 2025-11-25 client the page is done with.
func ExampleContext_ElicitURLCompletable() {
	callback := make(chan struct{})
	connect := sake.NewTool("connect", func(c *sake.Context) (string, error) {
		action, complete, err := c.ElicitURLCompletable("connect", "Connect your account", "https://example.com/connect")
		if err != nil {
			return "", err
		}
		if action != sake.Accept {
			return "not connected", nil
		}
		select {
		case <-callback:
			complete()
			return "connected", nil
		case <-c.Done():
			return "", c.Err()
		}
	})
	fmt.Println(connect != nil)
	// Output: true
}
