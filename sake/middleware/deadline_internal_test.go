package middleware

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A call's context nobody waited on ends when the call returns: its Err
// is Canceled, its Done (asked for afterwards) is closed, and a function
// registered afterwards runs.
func TestDeadlineCtxEndsUnwaited(t *testing.T) {
	clock := &clockTimeout{timeout: time.Hour, epoch: time.Now()}
	c := clock.newCall(context.Background())
	if c.w != nil {
		t.Fatal("the context of a call made its waiting state before anyone waited")
	}
	if c.finish(false) {
		t.Fatal("a call an hour before its deadline timed out")
	}
	if err := c.Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Err after the call returned: %v, want Canceled", err)
	}
	select {
	case <-c.Done():
	default:
		t.Fatal("Done asked for after the call returned is open")
	}
	ran := make(chan struct{})
	if c.AfterFunc(func() { close(ran) })() {
		t.Fatal("stop of a function registered after the end reported it stopped")
	}
	<-ran
}

// A call's context waited on ends when the call returns: Done closes, the
// functions registered run, and the deadline's timer stops.
func TestDeadlineCtxEndsWaited(t *testing.T) {
	clock := &clockTimeout{timeout: time.Hour, epoch: time.Now()}
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := clock.newCall(parent)
	done := c.Done()
	ran := make(chan struct{})
	c.AfterFunc(func() { close(ran) })
	stopped := c.AfterFunc(func() { t.Error("a stopped function ran") })
	if !stopped() {
		t.Fatal("stop before the end reported nothing to stop")
	}
	if c.w.timer == nil || c.w.stopParent == nil {
		t.Fatal("a context waited on follows neither its deadline nor its parent")
	}
	if c.finish(true) {
		t.Fatal("a failed call an hour before its deadline timed out")
	}
	<-done
	<-ran
	if c.w.timer != nil || c.w.stopParent != nil || c.w.afters != nil {
		t.Fatal("the ended context still holds its timer, its parent's follower or its functions")
	}
	if err := c.Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Err: %v, want Canceled", err)
	}
}

// A context waited on ends with its parent, with the parent's error.
func TestDeadlineCtxFollowsParent(t *testing.T) {
	clock := &clockTimeout{timeout: time.Hour, epoch: time.Now()}
	parent, cancel := context.WithCancel(context.Background())
	c := clock.newCall(parent)
	done := c.Done()
	cancel()
	<-done
	if err := c.Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Err: %v, want the parent's Canceled", err)
	}
	if c.finish(true) {
		t.Fatal("a call whose request was cancelled reported a timeout")
	}
}
