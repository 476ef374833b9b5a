package state_test

import (
	"context"
	"fmt"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/state"
)

// A user's state, preset and read outside any call, as a test does
// before and after it calls the server.
func ExampleState_UserOf() {
	st := state.MustNew(state.Config{})
	alice := &sake.Identity{Subject: "alice", Claims: map[string]any{"iss": "https://login.example", "tid": "acme"}}
	sc, _ := st.UserOf(alice)
	ctx := context.Background()
	_ = state.Set(ctx, sc, "cart", []string{"tea"})
	cart, _ := state.Update(ctx, sc, "cart", func(c []string, _ bool) ([]string, error) {
		return append(c, "sake"), nil
	})
	fmt.Println(cart)

	// The same subject in another tenant is another user.
	other, _ := st.UserOf(&sake.Identity{Subject: "alice", Claims: map[string]any{"iss": "https://login.example", "tid": "globex"}})
	_, found, _ := state.Get[[]string](ctx, other, "cart")
	fmt.Println(found)
	// Output:
	// [tea sake]
	// false
}
