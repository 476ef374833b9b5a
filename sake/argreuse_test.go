package sake_test

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// keeper keeps every argument it is called with.
type keeper struct {
	mu   sync.Mutex
	kept []keepArgs
}

type keepArgs struct {
	N     int            `json:"n"`
	Name  string         `json:"name"`
	Any   any            `json:"any"`
	Attrs map[string]any `json:"attrs"`
}

func (k *keeper) Keep(_ context.Context, a keepArgs) (string, error) {
	k.mu.Lock()
	k.kept = append(k.kept, a)
	k.mu.Unlock()
	return "kept", nil
}

// TestKeptArgumentsStayIntact calls a tool that keeps its arguments,
// from several goroutines: what each call kept is still what it was sent
// after all the others (the server reuses what it decodes arguments
// into, never what a tool can hold).
func TestKeptArgumentsStayIntact(t *testing.T) {
	k := &keeper{}
	c := saketest.Connect(t, sake.MustNew(k))
	const callers, each = 4, 50
	want := make(map[int]keepArgs)
	for i := range callers * each {
		want[i] = keepArgs{N: i, Name: fmt.Sprint("name-", i),
			Any:   map[string]any{"i": float64(i), "list": []any{fmt.Sprint(i)}},
			Attrs: map[string]any{"k": fmt.Sprint("v", i)}}
	}
	var wg sync.WaitGroup
	for g := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range each {
				a := want[g*each+j]
				if res, err := c.CallTool("keep", a); err != nil || res.IsError {
					t.Errorf("call %d: %v %v", a.N, err, res)
				}
			}
		}()
	}
	wg.Wait()
	if len(k.kept) != callers*each {
		t.Fatalf("kept %d calls, want %d", len(k.kept), callers*each)
	}
	for _, got := range k.kept {
		if !reflect.DeepEqual(got, want[got.N]) {
			t.Errorf("kept %#v, want %#v", got, want[got.N])
		}
	}
}
