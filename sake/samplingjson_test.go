package sake_test

import (
	"encoding/json"
	"testing"

	"github.com/sakemcp/sake-go/sake"
)

// A SamplingResult encodes as a client answers sampling/createMessage, so
// it decodes back to itself; one without content does not encode.
func TestSamplingResultRoundTrips(t *testing.T) {
	t.Parallel()
	in := sake.SamplingResult{Content: sake.Text("Paris"), Model: "m", StopReason: "endTurn"}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m","stopReason":"endTurn"}`; string(b) != want {
		t.Errorf("encoded = %s, want %s", b, want)
	}
	var out sake.SamplingResult
	if err := json.Unmarshal(b, &out); err != nil || out.Text() != "Paris" || out.Role != sake.RoleAssistant || out.Model != "m" || out.StopReason != "endTurn" {
		t.Errorf("decoded = %+v, %v", out, err)
	}
	if b, err := json.Marshal(&sake.SamplingResult{Model: "m"}); err == nil {
		t.Errorf("a result without content encoded as %s, want an error", b)
	}
}
