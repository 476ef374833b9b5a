package sake_test

import (
	"fmt"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// WithLimits changes the bounds it names and keeps the defaults of the
// others: here pages of two tools, 32 requests at once per session, and
// no cap on the length of a subscribed URI. A bound that cannot be
// removed refuses a negative value.
func ExampleWithLimits() {
	t := &exampleT{}
	defer t.end()

	srv := sake.MustNew(nil, sake.WithLimits(sake.Limits{
		PageSize:                2,
		MaxInFlight:             32,
		MaxSubscriptionURIBytes: -1,
	}))
	for _, name := range []string{"a", "b", "c"} {
		_ = srv.AddTool(sake.NewTool(name, func(*sake.Context) (string, error) { return name, nil }))
	}
	page, _ := saketest.Connect(t, srv).ListToolsPage("")
	fmt.Println(len(page.Items), page.NextCursor != "")

	_, err := sake.New(nil, sake.WithLimits(sake.Limits{RequestStateTTL: -time.Minute}))
	fmt.Println(err)
	// Output:
	// 2 true
	// sake: cannot serve the limits:
	//   Limits.RequestStateTTL is -1m0s: this bound cannot be removed; give a positive value, or 0 for the default
}
