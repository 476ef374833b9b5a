// Command bare is the ceiling of the benchmark: an echo server written on
// the standard library alone, with no MCP framework. It decodes each
// message with encoding/json into the few fields it needs and answers
// tools/call echo, initialize and notifications, over stdio or HTTP (-http ADDR, plain JSON
// replies, a session id for initialize; over stdio, one line after the
// other, flushing when no input waits). A 2026-07-28 request (one whose
// _meta names a protocol version) gets the result that revision asks of a
// server: resultType, which it requires, and the serverInfo it asks for in
// _meta, as Sake sends by default, so that both write the same bytes. It
// checks nothing else: what a framework costs above it is validation, both
// eras, sessions and the rest.
package main

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"io"
	"log"
	"net/http"
	"os"
)

type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name      string `json:"name"`
		Arguments struct {
			Text string `json:"text"`
		} `json:"arguments"`
		ProtocolVersion string `json:"protocolVersion"`
		Meta            struct {
			ProtocolVersion string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	} `json:"params"`
}

type content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type callResult struct {
	Content    []content   `json:"content"`
	ResultType string      `json:"resultType,omitempty"`
	Meta       *resultMeta `json:"_meta,omitempty"`
}

// resultMeta is the _meta of a 2026-07-28 result.
type resultMeta struct {
	ServerInfo implementation `json:"io.modelcontextprotocol/serverInfo"`
}

type implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type reply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   any             `json:"error,omitempty"`
}

// answer returns the reply to one message, nil for a notification.
func answer(b []byte) ([]byte, bool) {
	var m message
	if err := json.Unmarshal(b, &m); err != nil {
		out, _ := json.Marshal(reply{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: map[string]any{"code": -32700, "message": "Parse error"}})
		return out, false
	}
	if len(m.ID) == 0 {
		return nil, false
	}
	r := reply{JSONRPC: "2.0", ID: m.ID}
	initialize := false
	switch m.Method {
	case "initialize":
		initialize = true
		r.Result = map[string]any{"protocolVersion": m.Params.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]any{"name": "bare", "version": "1.0.0"}}
	case "tools/call":
		res := callResult{Content: []content{{"text", m.Params.Arguments.Text}}}
		if m.Params.Meta.ProtocolVersion != "" {
			res.ResultType = "complete"
			res.Meta = &resultMeta{ServerInfo: implementation{Name: "bare", Version: "1.0.0"}}
		}
		r.Result = res
	default:
		r.Error = map[string]any{"code": -32601, "message": "Method not found"}
	}
	out, _ := json.Marshal(r)
	return out, initialize
}

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP at ADDR/mcp instead of stdio")
	flag.Parse()
	if *addr != "" {
		http.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			out, initialize := answer(b)
			if out == nil {
				w.WriteHeader(http.StatusAccepted)
				return
			}
			if initialize {
				var id [16]byte
				_, _ = rand.Read(id[:])
				w.Header().Set("Mcp-Session-Id", hex.EncodeToString(id[:]))
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(out)
		})
		log.Fatal(http.ListenAndServe(*addr, nil))
	}
	// stdio: answer each line in turn, flushing when no more input is
	// waiting, the least work a line server can do.
	br := bufio.NewReaderSize(os.Stdin, 64<<10)
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			if out, _ := answer(line); out != nil {
				_, _ = w.Write(out)
				_ = w.WriteByte('\n')
			}
		}
		if err != nil {
			_ = w.Flush()
			return
		}
		if br.Buffered() == 0 {
			_ = w.Flush()
		}
	}
}
