package plug_test

import (
	"bytes"
	"io"
	"net/http"
	"testing"
)

// benchPost sends body to the server over a keep-alive client, from
// GOMAXPROCS goroutines, and checks every status.
func benchPost(b *testing.B, url string, body []byte, hdr http.Header) {
	b.Helper()
	tr := &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
			if err != nil {
				b.Error(err)
				return
			}
			req.Header = hdr
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
}

func BenchmarkHTTPToolsCallModern(b *testing.B) {
	ts, _, _ := serve(b, echo{})
	body, hdr := modernCall("hello")
	benchPost(b, ts.URL, []byte(body), hdr)
}

func BenchmarkHTTPToolsCallLegacy(b *testing.B) {
	ts, _, _ := serve(b, echo{})
	sid := initialize(b, ts, nil)
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`)
	benchPost(b, ts.URL, body, legacyHeaders(sid))
}
