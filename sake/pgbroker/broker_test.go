package pgbroker_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
	"github.com/sakemcp/sake-go/sake/pgbroker"
)

// replicas starts n servers on one database, each with a broker of its own.
func replicas(t *testing.T, n int) []*sake.Server {
	t.Helper()
	url, schema, _ := pgtest.Schema(t)
	var out []*sake.Server
	for i := range n {
		b := pgbroker.New(pgtest.Pool(t, url, schema), fmt.Sprint("r", i), nil)
		s := sake.MustNew(nil, sake.Broker(b))
		t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
		out = append(out, s)
	}
	return out
}

func TestBroadcastsReachEveryReplicaInOrderOnce(t *testing.T) {
	t.Parallel()
	srvs := replicas(t, 3)
	got := make([]chan sake.Broadcast, len(srvs))
	for i, s := range srvs {
		ch := make(chan sake.Broadcast, 64)
		got[i] = ch
		stop := s.Watch(func(b sake.Broadcast) { ch <- b })
		t.Cleanup(stop)
	}
	want := []sake.Broadcast{
		{List: sake.ListTools}, {URI: "file:///a"}, {List: sake.ListPrompts}, {URI: "file:///b"}, {List: sake.ListResources},
	}
	srvs[0].NotifyListChanged(sake.ListTools)
	srvs[0].ResourceUpdated("file:///a")
	srvs[0].NotifyListChanged(sake.ListPrompts)
	srvs[0].ResourceUpdated("file:///b")
	srvs[0].NotifyListChanged(sake.ListResources)
	// A last marker from another replica: once it has arrived, nothing
	// published before it by the first is still on its way (NOTIFYs are
	// delivered in commit order). Its own replica delivers it at once.
	marker := sake.Broadcast{URI: "marker://end"}
	srvs[1].ResourceUpdated(marker.URI)
	for i, ch := range got {
		var seen []sake.Broadcast
		for n := 0; n < len(want); {
			b := <-ch
			if b == marker {
				if i != 1 {
					break
				}
				continue
			}
			seen = append(seen, b)
			n++
		}
		if fmt.Sprint(seen) != fmt.Sprint(want) {
			t.Errorf("replica %d saw %v, want %v", i, seen, want)
		}
	}
	// Nothing arrives twice.
	for i, ch := range got {
		select {
		case b := <-ch:
			if i != 1 && b != marker {
				t.Errorf("replica %d got an extra %v", i, b)
			}
		default:
		}
	}
}

func TestOversizedURIStaysLocal(t *testing.T) {
	t.Parallel()
	url, schema, _ := pgtest.Schema(t)
	b := pgbroker.New(pgtest.Pool(t, url, schema), "r0", nil)
	err := b.Publish(context.Background(), sake.Broadcast{URI: "file:///" + strings.Repeat("x", pgbroker.MaxURI)})
	if err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("oversized URI: %v", err)
	}
}

// TestEscapedURIReachesOtherReplica publishes a URI whose characters JSON
// would escape to six bytes each: its payload must still fit a NOTIFY.
func TestEscapedURIReachesOtherReplica(t *testing.T) {
	t.Parallel()
	srvs := replicas(t, 2)
	got := make(chan sake.Broadcast, 4)
	stop := srvs[1].Watch(func(b sake.Broadcast) { got <- b })
	t.Cleanup(stop)
	uri := strings.Repeat("<", 1408)
	srvs[0].ResourceUpdated(uri)
	// A marker after it: once the marker arrives, the URI had its chance.
	srvs[0].ResourceUpdated("marker://end")
	var seen []string
	for b := range got {
		if b.URI == "marker://end" {
			break
		}
		seen = append(seen, b.URI)
	}
	if len(seen) != 1 || seen[0] != uri {
		t.Fatalf("the other replica saw %d updates (%.20q...), want the %d-byte URI", len(seen), seen, len(uri))
	}
}

// TestURIWhoseEncodingOverflowsIsRefused publishes a URI short in bytes
// whose JSON encoding would not fit a NOTIFY: Publish says so.
func TestURIWhoseEncodingOverflowsIsRefused(t *testing.T) {
	t.Parallel()
	url, schema, _ := pgtest.Schema(t)
	b := pgbroker.New(pgtest.Pool(t, url, schema), "r0", nil)
	uri := "file:///" + strings.Repeat("\x01", 1400) // 6 bytes each once encoded
	err := b.Publish(context.Background(), sake.Broadcast{URI: uri})
	if err == nil || !strings.Contains(err.Error(), "encoded") {
		t.Fatalf("URI whose encoding overflows: %v", err)
	}
}

// TestSchemasDoNotHearEachOther runs servers in two schemas of one
// database: a broadcast in one reaches its sibling and not the other
// schema's server.
func TestSchemasDoNotHearEachOther(t *testing.T) {
	t.Parallel()
	here := replicas(t, 2)
	there := replicas(t, 2)
	other := make(chan sake.Broadcast, 8)
	t.Cleanup(there[1].Watch(func(b sake.Broadcast) { other <- b }))
	sibling := make(chan sake.Broadcast, 8)
	t.Cleanup(here[1].Watch(func(b sake.Broadcast) { sibling <- b }))
	here[0].ResourceUpdated("file:///here")
	// A marker from the other schema's first server: it reaches the
	// second after anything published before it on a channel it listens
	// to. (Replica names repeat across the schemas, so the listener is
	// the one named unlike the publisher.)
	there[0].ResourceUpdated("marker://there")
	if b := <-sibling; b.URI != "file:///here" {
		t.Fatalf("the sibling saw %v, want file:///here", b)
	}
	for b := range other {
		if b.URI == "marker://there" {
			break
		}
		t.Fatalf("a server in another schema heard %v", b)
	}
}
