package gateway_test

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// TestPerUserResourcesReadAsEachUser: a per-user remote's resources are
// listed under the entry's namespace to a user once their session listed
// them, and read in their own session (the remote sees their subject); a
// caller not signed in is listed none and told to sign in.
func TestPerUserResourcesReadAsEachUser(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		remote := newAccounts(t)
		var readAs atomic.Value
		readAs.Store("")
		if err := remote.srv.AddResource(sake.NewResource("notes://mine", func(c *sake.Context) ([]sake.ResourceContents, error) {
			readAs.Store(readAs.Load().(string) + c.Identity().Subject + " ")
			return []sake.ResourceContents{{URI: "notes://mine", MIMEType: "text/plain", Text: "notes of " + c.Identity().Subject}}, nil
		}).Name("notes").MIMEType("text/plain")); err != nil {
			t.Fatal(err)
		}
		g, _, _ := perUserGateway(t, remote.url)
		var asked atomic.Int32
		ann := saketest.Connect(t, g.Server(), append(opts, saketest.Subject("ann"), signingIn(t, "ann", &asked))...)
		bob := saketest.Connect(t, g.Server(), append(opts, saketest.Subject("bob"), signingIn(t, "bob", &asked))...)
		if _, err := ann.CallTool("accounts_sign_in", nil); err != nil {
			t.Fatal(err)
		}
		list, err := ann.ListResources()
		if err != nil || len(list) != 1 || list[0].URI != "accounts+notes://mine" {
			t.Fatalf("ann's resources = %+v, %v", list, err)
		}
		contents, err := ann.ReadResource("accounts+notes://mine")
		if err != nil || len(contents) != 1 || contents[0].Text != "notes of ann" {
			t.Fatalf("ann's notes = %+v, %v", contents, err)
		}
		if list, err := bob.ListResources(); err != nil || len(list) != 0 {
			t.Fatalf("bob, not signed in, is listed %+v, %v", list, err)
		}
		if _, err := bob.ReadResource("accounts+notes://mine"); err == nil || !strings.Contains(err.Error(), "sign_in") {
			t.Fatalf("bob's read: %v, want to be told to sign in", err)
		}
		if got := readAs.Load().(string); got != "ann " {
			t.Fatalf("the remote's resource was read as %q", got)
		}
	})
}
