package client_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake/client"
)

func TestQuestionsOutsideAForwardedCall(t *testing.T) {
	t.Parallel()
	srv, _ := newKitServer(t)
	c := connect(t, transports[0], srv, client.ForwardQuestions())
	_, err := c.CallTool(t.Context(), "ask", nil)
	if err == nil || !strings.Contains(err.Error(), "outside any forwarded call") {
		t.Fatalf("err = %v", err)
	}
	_ = http.StatusOK
}
