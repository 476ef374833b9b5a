package sake_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/sakemcp/sake-go/sake"
)

// limitsProbe measures two bounds of a server built with opts: the tools
// on the first page of tools/list (of 1001 tools), and whether a legacy
// session may subscribe to a notes:// URI of n bytes.
func limitsProbe(t *testing.T, opts ...sake.Option) (firstPage int, subscribes func(n int) bool) {
	t.Helper()
	s := manyTools(t, 1001, opts...)
	p, err := connect(t, s).ListToolsPage("")
	if err != nil {
		t.Fatal(err)
	}
	firstPage = len(p.Items)

	ns := sake.MustNew(newNotes(), opts...)
	r, _ := rpc(t, ns, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`, nil)
	in := &sake.Inbound{Session: r.Session}
	id := 1
	subscribes = func(n int) bool {
		t.Helper()
		id++
		uri := "notes://" + strings.Repeat("9", n-len("notes://"))
		_, m := rpc(t, ns, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/subscribe","params":{"uri":%q}}`, id, uri), in)
		if m["result"] == nil && errCode(m) != sake.CodeInvalidParams {
			t.Fatalf("subscribe to %d bytes: %v, want a result or -32602", n, m)
		}
		return m["result"] != nil && r.Session.Subscribed(uri)
	}
	return firstPage, subscribes
}

// A zero field of Limits keeps the default; a negative one removes the
// cap where the field allows it.
func TestLimitsZeroKeepsDefaultNegativeRemovesCap(t *testing.T) {
	t.Parallel()
	for _, opts := range [][]sake.Option{nil, {sake.WithLimits(sake.Limits{})}} {
		page, subscribes := limitsProbe(t, opts...)
		if page != 1000 {
			t.Errorf("%d options: the first page holds %d tools, want the default 1000", len(opts), page)
		}
		if !subscribes(2048) || subscribes(2049) {
			t.Errorf("%d options: subscribing is not bounded at the default 2048 bytes", len(opts))
		}
	}
	page, subscribes := limitsProbe(t, sake.WithLimits(sake.Limits{PageSize: -1, MaxSubscriptionURIBytes: -1}))
	if page != 1001 {
		t.Errorf("PageSize -1: the first page holds %d tools, want all 1001", page)
	}
	if !subscribes(2049) || !subscribes(10000) {
		t.Error("MaxSubscriptionURIBytes -1: a long URI is still refused")
	}
}

// WithLimits given twice: the later call's non-zero fields override the
// earlier one's, its zero fields leave them be.
func TestWithLimitsLaterNonZeroFieldsOverride(t *testing.T) {
	t.Parallel()
	page, subscribes := limitsProbe(t,
		sake.WithLimits(sake.Limits{PageSize: 2, MaxSubscriptionURIBytes: 64}),
		sake.WithLimits(sake.Limits{PageSize: 3}))
	if page != 3 {
		t.Errorf("the first page holds %d tools, want 3 (the later PageSize)", page)
	}
	if !subscribes(64) || subscribes(65) {
		t.Error("the later WithLimits undid the earlier MaxSubscriptionURIBytes")
	}
}

// A bound that cannot be removed refuses a negative value: New fails
// naming every such field, and builds nothing.
func TestLimitsThatCannotBeRemoved(t *testing.T) {
	t.Parallel()
	s, err := sake.New(newNotes(), sake.WithLimits(sake.Limits{
		AskTimeout: -time.Second, RequestStateTTL: -1, MaxSingleUseStates: -1, MaxSkillFiles: -1, MaxSkillBytes: -1,
		MaxInFlight: -1, // removable: not named
	}))
	ce, ok := errors.AsType[*sake.ConstructionError](err)
	if !ok || s != nil {
		t.Fatalf("New = %v, %v; want a *ConstructionError and no server", s, err)
	}
	for _, field := range []string{"AskTimeout", "RequestStateTTL", "MaxSingleUseStates", "MaxSkillFiles", "MaxSkillBytes"} {
		if !strings.Contains(ce.Error(), "Limits."+field+" is -") {
			t.Errorf("the error does not name Limits.%s: %v", field, ce)
		}
	}
	if len(ce.Problems) != 5 || strings.Contains(ce.Error(), "MaxInFlight") {
		t.Errorf("the error names %d problems, want the 5 fixed fields: %v", len(ce.Problems), ce)
	}
}

// The bounds on one skill's files follow Limits, both ways.
func TestLimitsBoundSkills(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"x/SKILL.md": {Data: []byte("---\nname: x\ndescription: d\n---\nbody\n")},
		"x/a.txt":    {Data: []byte("aaaa")},
		"x/b.txt":    {Data: []byte("bbbb")},
	}
	if _, err := sake.New(nil, sake.Skills(fsys), sake.WithLimits(sake.Limits{MaxSkillFiles: 3, MaxSkillBytes: 100})); err != nil {
		t.Fatalf("New within the limits: %v", err)
	}
	for name, c := range map[string]struct {
		l    sake.Limits
		want string
	}{
		"files": {sake.Limits{MaxSkillFiles: 2}, "at most 2 (SKILL.md included, Limits.MaxSkillFiles)"},
		"bytes": {sake.Limits{MaxSkillBytes: 40}, "at most 40 (Limits.MaxSkillBytes)"},
	} {
		s, err := sake.New(nil, sake.Skills(fsys), sake.WithLimits(c.l))
		if _, ok := errors.AsType[*sake.ConstructionError](err); !ok || s != nil || !strings.Contains(err.Error(), "skill x") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: New = %v, want a construction error naming skill x and %q", name, err, c.want)
		}
	}
}
