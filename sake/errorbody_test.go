package sake_test

import (
	"encoding/json"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
)

func TestErrorBody(t *testing.T) {
	msg := "a \"quoted\" <word>\nand a line"
	b := protocol.ErrorBody(sake.CodeParseError, msg)
	var got struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("not JSON: %s (%v)", b, err)
	}
	if got.JSONRPC != "2.0" || string(got.ID) != "null" || got.Error.Code != sake.CodeParseError || got.Error.Message != msg {
		t.Errorf("ErrorBody = %s", b)
	}
}
