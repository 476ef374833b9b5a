package sake_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sakemcp/sake-go/sake"
)

type payer struct{ paid, greeted atomic.Int32 }

func (*payer) Declare(d *sake.Declarations) { d.Tool("Pay").SingleUseState() }

func (p *payer) Pay(ctx *sake.Context) (string, error) {
	var f nameForm
	if _, err := ctx.Elicit("confirm", "Pay?", &f); err != nil {
		return "", err
	}
	p.paid.Add(1)
	return "paid", nil
}

// Profile asks two questions, one after the other.
func (p *payer) Profile(ctx *sake.Context) (string, error) {
	var who, age nameForm
	if _, err := ctx.Elicit("who", "Name?", &who); err != nil {
		return "", err
	}
	if _, err := ctx.Elicit("age", "Age?", &age); err != nil {
		return "", err
	}
	p.greeted.Add(1)
	return who.Name + " " + age.Name, nil
}

const elicitMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`

func stateOf(t *testing.T, body map[string]any) string {
	t.Helper()
	res, _ := body["result"].(map[string]any)
	st, _ := res["requestState"].(string)
	if st == "" {
		t.Fatalf("no requestState in %v", body)
	}
	return st
}

func statePayload(t *testing.T, state string) string {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(state[:strings.LastIndexByte(state, '.')])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// inputResponses count only for the questions the state asked: other keys
// are ignored, neither signed into the next state nor taken as answers to
// questions not yet asked.
func TestUnknownInputResponsesIgnored(t *testing.T) {
	t.Parallel()
	p := &payer{}
	s := sake.MustNew(p)
	_, body := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"profile",`+elicitMeta+`}}`, nil)
	st1 := stateOf(t, body)
	_, body = rpc(t, s, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"profile","requestState":"`+st1+`","inputResponses":{"who":{"action":"accept","content":{"name":"Ann"}},"age":{"action":"accept","content":{"name":"early"}},"smuggled":{"x":"`+strings.Repeat("s", 1000)+`"}},`+elicitMeta+`}}`, nil)
	st2 := stateOf(t, body) // "age" is asked: the early answer did not count
	if payload := statePayload(t, st2); strings.Contains(payload, "smuggled") || strings.Contains(payload, "early") || !strings.Contains(payload, "Ann") {
		t.Fatalf("the next state carries %s", payload)
	}
	_, body = rpc(t, s, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"profile","requestState":"`+st2+`","inputResponses":{"age":{"action":"accept","content":{"name":"40"}}},`+elicitMeta+`}}`, nil)
	if res, _ := body["result"].(map[string]any); res == nil || !strings.Contains(toJSON(res), "Ann 40") {
		t.Fatalf("final round: %v", body)
	}
	// Without a state nothing was asked: inputResponses alone answer nothing.
	_, body = rpc(t, s, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"profile","inputResponses":{"who":{"action":"accept","content":{"name":"Bo"}},"age":{"action":"accept","content":{"name":"1"}}},`+elicitMeta+`}}`, nil)
	stateOf(t, body)
	if n := p.greeted.Load(); n != 1 {
		t.Errorf("profile completed %d times", n)
	}
}

// A single-use tool's state runs the tool once; replaying it is refused.
// Other tools' states may be replayed within their TTL.
func TestSingleUseRequestState(t *testing.T) {
	t.Parallel()
	p := &payer{}
	s := sake.MustNew(p)
	_, body := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pay",`+elicitMeta+`}}`, nil)
	st := stateOf(t, body)
	retry := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"pay","requestState":"` + st + `","inputResponses":{"confirm":{"action":"accept","content":{"name":"yes"}}},` + elicitMeta + `}}`
	if r, _ := rpc(t, s, retry, nil); r.ErrorCode != 0 || p.paid.Load() != 1 {
		t.Fatalf("first redemption: %s", r.Body)
	}
	if r, _ := rpc(t, s, retry, nil); r.ErrorCode != sake.CodeInvalidParams || !strings.Contains(string(r.Body), "already used") {
		t.Fatalf("replay: %s", r.Body)
	}
	if n := p.paid.Load(); n != 1 {
		t.Fatalf("paid %d times", n)
	}
	// Profile's states are not single-use.
	_, body = rpc(t, s, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"profile",`+elicitMeta+`}}`, nil)
	st = stateOf(t, body)
	again := `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"profile","requestState":"` + st + `","inputResponses":{"who":{"action":"accept","content":{"name":"Ann"}}},` + elicitMeta + `}}`
	for range 2 {
		if _, body := rpc(t, s, again, nil); !strings.Contains(toJSON(body), "requestState") {
			t.Fatalf("replaying a plain state: %v", body)
		}
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// At Limits.MaxSingleUseStates redeemed states, one more is refused with
// CodeServerBusy and the tool does not run.
func TestSingleUseStatesAreBounded(t *testing.T) {
	t.Parallel()
	p := &payer{}
	s := sake.MustNew(p, sake.WithLimits(sake.Limits{MaxSingleUseStates: 1}))
	retry := func() string {
		_, body := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pay",`+elicitMeta+`}}`, nil)
		return `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"pay","requestState":"` + stateOf(t, body) + `","inputResponses":{"confirm":{"action":"accept","content":{"name":"yes"}}},` + elicitMeta + `}}`
	}
	if r, _ := rpc(t, s, retry(), nil); r.ErrorCode != 0 || p.paid.Load() != 1 {
		t.Fatalf("first redemption: %s", r.Body)
	}
	if r, _ := rpc(t, s, retry(), nil); r.ErrorCode != sake.CodeServerBusy || !strings.Contains(string(r.Body), "single-use") {
		t.Fatalf("a redemption beyond the cap: %s, want %d", r.Body, sake.CodeServerBusy)
	}
	if n := p.paid.Load(); n != 1 {
		t.Fatalf("paid %d times, want 1", n)
	}
}
