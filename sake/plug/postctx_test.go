package plug

import (
	"context"
	"errors"
	"testing"
)

type ctxKey struct{}

// TestPostContextEndsWithTheRequest: whether or not anyone waited on it
// first, a request's context ends when the request's own context does,
// and so do the contexts derived from it.
func TestPostContextEndsWithTheRequest(t *testing.T) {
	for _, waitFirst := range []bool{false, true} {
		parent, end := context.WithCancel(context.WithValue(context.Background(), ctxKey{}, "v"))
		c := &postContext{parent: parent}
		var done <-chan struct{}
		if waitFirst {
			done = c.Done()
		}
		child, stopChild := context.WithCancel(c)
		fired := make(chan struct{})
		context.AfterFunc(c, func() { close(fired) })
		if c.Err() != nil || child.Err() != nil || c.Value(ctxKey{}) != "v" {
			t.Fatalf("waitFirst=%v: ended early: %v, %v", waitFirst, c.Err(), child.Err())
		}
		end()
		if done == nil {
			done = c.Done()
		}
		<-done
		<-child.Done()
		<-fired
		if !errors.Is(c.Err(), context.Canceled) || !errors.Is(child.Err(), context.Canceled) {
			t.Fatalf("waitFirst=%v: err %v, child %v", waitFirst, c.Err(), child.Err())
		}
		stopChild()
		c.release()
	}
}

// TestPostContextCancel: cancel ends the context, its Done channel and
// its children, whether Done was asked for before or after, and leaves
// the request's own context alone.
func TestPostContextCancel(t *testing.T) {
	for _, waitFirst := range []bool{false, true} {
		parent, end := context.WithCancel(context.Background())
		c := &postContext{parent: parent}
		var done <-chan struct{}
		var child context.Context
		stopChild := func() {}
		if waitFirst {
			done = c.Done()
			child, stopChild = context.WithCancel(c)
		}
		c.cancel()
		if done == nil {
			done = c.Done()
			child, stopChild = context.WithCancel(c)
		}
		defer stopChild()
		<-done
		<-child.Done()
		if !errors.Is(c.Err(), context.Canceled) || parent.Err() != nil {
			t.Fatalf("waitFirst=%v: err %v, parent %v", waitFirst, c.Err(), parent.Err())
		}
		c.release()
		end()
	}
}

// TestPostContextUnused: a request whose context nobody waited on makes
// no context of its own, and release then costs nothing.
func TestPostContextUnused(t *testing.T) {
	parent, end := context.WithCancel(context.Background())
	defer end()
	c := &postContext{parent: parent}
	if c.Err() != nil || c.Value(ctxKey{}) != nil {
		t.Fatal("a fresh request context reports an end or a value")
	}
	c.release()
	if c.inner != nil {
		t.Fatal("a merged context was made for a request nobody waited on")
	}
	// What asks after the request was answered sees it ended.
	if !errors.Is(c.Err(), context.Canceled) || parent.Err() != nil {
		t.Fatalf("after release: err %v, parent %v", c.Err(), parent.Err())
	}
	<-c.Done()
}
