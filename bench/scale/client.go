package main

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strconv"
)

const (
	legacyVersion = "2025-11-25"
	modernVersion = "2026-07-28"
	modernMeta    = `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + modernVersion + `",` +
		`"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"scale","version":"1.0.0"}}`
)

var httpClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

// client is one MCP client over HTTP: a legacy session, or modern
// requests that carry their own _meta.
type client struct {
	url    string
	modern bool
	hdr    http.Header
	resp   bytes.Buffer
	body   []byte
	id     int
}

func connect(url string, modern bool) (*client, error) {
	c := &client{url: url, modern: modern, hdr: http.Header{}}
	c.hdr.Set("Content-Type", "application/json")
	c.hdr.Set("Accept", "application/json, text/event-stream")
	if modern {
		c.hdr.Set("MCP-Protocol-Version", modernVersion)
		return c, nil
	}
	resp, body, err := c.post([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+legacyVersion+
		`","capabilities":{},"clientInfo":{"name":"scale","version":"1.0.0"}}}`), "", "")
	if err != nil {
		return nil, fmt.Errorf("initialize: %v", err)
	}
	if !bytes.Contains(body, []byte(`"protocolVersion":"`+legacyVersion+`"`)) {
		return nil, fmt.Errorf("initialize: %.300s", body)
	}
	c.hdr.Set("MCP-Protocol-Version", legacyVersion)
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		c.hdr.Set("Mcp-Session-Id", sid)
	}
	if _, _, err := c.post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), "", ""); err != nil {
		return nil, fmt.Errorf("notifications/initialized: %v", err)
	}
	return c, nil
}

// post sends one message and reads the whole answer into the client's
// buffer (the returned body aliases it until the next post).
func (c *client) post(msg []byte, method, name string) (*http.Response, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(msg))
	if err != nil {
		return nil, nil, err
	}
	req.Header = c.hdr.Clone()
	if c.modern && method != "" {
		req.Header.Set("Mcp-Method", method)
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	c.resp.Reset()
	if _, err := c.resp.ReadFrom(resp.Body); err != nil {
		return nil, nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, nil, fmt.Errorf("HTTP %d: %.300s", resp.StatusCode, c.resp.Bytes())
	}
	return resp, c.resp.Bytes(), nil
}

func (c *client) request(method, name, params string) ([]byte, error) {
	c.id++
	c.body = append(c.body[:0], `{"jsonrpc":"2.0","id":`...)
	c.body = strconv.AppendInt(c.body, int64(c.id), 10)
	c.body = append(c.body, `,"method":"`+method+`","params":{`...)
	c.body = append(c.body, params...)
	if c.modern {
		if params != "" {
			c.body = append(c.body, ',')
		}
		c.body = append(c.body, modernMeta...)
	}
	c.body = append(c.body, "}}"...)
	_, body, err := c.post(c.body, method, name)
	if err != nil {
		return nil, err
	}
	if bytes.Contains(body, []byte(`"error":{`)) || bytes.Contains(body, []byte(`"isError":true`)) {
		return nil, fmt.Errorf("%s failed: %.300s", method, body)
	}
	return body, nil
}

// call sends tools/call and checks that the first text is want (compared
// by its JSON form, so that the check costs the client little).
func (c *client) call(tool, args, want string) error {
	body, err := c.request("tools/call", tool, `"name":"`+tool+`","arguments":`+args)
	if err != nil {
		return err
	}
	if !bytes.Contains(body, []byte(`"text":"`+want+`"`)) {
		return fmt.Errorf("tools/call %s: the answer lacks the text sent: %.300s", tool, body)
	}
	return nil
}

// listAll lists every tool, following cursors, and checks the count.
func (c *client) listAll(want int) error {
	cursor := ""
	got := 0
	for pages := 0; ; pages++ {
		params := ""
		if cursor != "" {
			params = `"cursor":"` + cursor + `"`
		}
		body, err := c.request("tools/list", "", params)
		if err != nil {
			return err
		}
		got += bytes.Count(body, []byte(`"inputSchema"`))
		cursor = nextCursor(body)
		if cursor == "" {
			break
		}
		if pages > want {
			return errors.New("tools/list does not end")
		}
	}
	if got != want {
		return fmt.Errorf("tools/list: %d tools, want %d", got, want)
	}
	return nil
}

func nextCursor(body []byte) string {
	_, after, ok := bytes.Cut(body, []byte(`"nextCursor":"`))
	if !ok {
		return ""
	}
	end := bytes.IndexByte(after, '"')
	if end < 0 {
		return ""
	}
	return string(after[:end])
}
