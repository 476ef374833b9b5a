package gateway

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/proxy"
)

// LockFile keeps the pinned tool definitions (see Entry.Pin) in the file
// at path, read at New and written as tools are first seen or change,
// to be committed and reviewed like go.sum. LockPath gives the usual
// path beside the configuration. Without it, pins last as long as the
// gateway.
func LockFile(path string) Option { return func(o *options) { o.lockPath = path } }

// LockPath is the lock file beside a configuration file: mcp.json's is
// mcp.lock.json.
func LockPath(configPath string) string {
	ext := filepath.Ext(configPath)
	return strings.TrimSuffix(configPath, ext) + ".lock.json"
}

// lockData is the lock file: per entry, the hash of each tool's
// definition as approved, and that of a changed definition withheld
// until approved.
type lockData struct {
	Servers map[string]*lockEntry `json:"servers"`
}

type lockEntry struct {
	// Tools are the approved definitions, by the remote tool's name.
	Tools map[string]string `json:"tools"`
	// Pending are definitions seen that differ from the approved ones:
	// those tools are withheld until `sake gateway approve`.
	Pending map[string]string `json:"pending,omitempty"`
}

// pins holds the lock of a gateway.
type pins struct {
	mu   sync.Mutex
	path string // "" keeps it in memory
	data lockData
}

// maxLockBytes bounds the lock file a gateway reads: 16 MiB, far more
// than the hashes of thousands of tools take.
const maxLockBytes = 16 << 20

// readBounded reads the file at path, refusing one longer than max bytes.
func readBounded(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(raw)) > max {
		return nil, fmt.Errorf("gateway: %s is longer than %d bytes", path, max)
	}
	return raw, nil
}

// readLock reads the lock file at path; a missing file is an empty lock.
func readLock(path string) (lockData, error) {
	d := lockData{Servers: map[string]*lockEntry{}}
	if path == "" {
		return d, nil
	}
	raw, err := readBounded(path, maxLockBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return d, err
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return d, fmt.Errorf("gateway: the lock file %s is not valid JSON (fix it, or remove it to pin every tool again): %w", path, err)
	}
	if d.Servers == nil {
		d.Servers = map[string]*lockEntry{}
	}
	return d, nil
}

// writeLock writes d to path whole (a temporary file renamed in place),
// with sorted keys so that a diff shows what changed.
func writeLock(path string, d lockData) error {
	if path == "" {
		return nil
	}
	raw, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".lock-*.json")
	if err != nil {
		return err
	}
	_, err = tmp.Write(append(raw, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// toolHash is the hash of what a tool says of itself to a model: its
// name, description and schemas (the schemas' JSON canonical, so that
// spacing and key order do not count).
func toolHash(t protocol.ToolInfo) string {
	canon := func(raw json.RawMessage) any {
		var v any
		if len(bytes.TrimSpace(raw)) == 0 || json.Unmarshal(raw, &v) != nil {
			return string(raw)
		}
		return v
	}
	b, _ := json.Marshal([]any{t.Name, t.Description, canon(t.InputSchema), canon(t.OutputSchema)})
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// verdict says whether a tool of server with hash h is served: the
// first definition seen is pinned (trust on first use), the pinned one
// is served, another is withheld and recorded as pending. It reports
// whether the lock changed.
func (p *pins) verdict(server, tool, h string) (serve, changed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.data.Servers[server]
	if e == nil {
		e = &lockEntry{Tools: map[string]string{}}
		p.data.Servers[server] = e
	}
	pinned, ok := e.Tools[tool]
	switch {
	case !ok:
		e.Tools[tool] = h
		return true, true
	case pinned == h:
		if _, was := e.Pending[tool]; was {
			delete(e.Pending, tool)
			return true, true
		}
		return true, false
	}
	if e.Pending == nil {
		e.Pending = map[string]string{}
	}
	if e.Pending[tool] == h {
		return false, false
	}
	e.Pending[tool] = h
	return false, true
}

// save writes the lock; the caller logs a failure.
func (p *pins) save() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return writeLock(p.path, p.data)
}

// pinOptions are the proxy options that withhold r's tools whose
// definition changed since pinned, when r pins.
func (g *Gateway) pinOptions(r *remote) []proxy.Option {
	if !r.pin {
		return nil
	}
	return []proxy.Option{proxy.FilterTools(func(t protocol.ToolInfo) bool { return g.pinned(r, t) })}
}

// pinned reports whether r's tool t is served: its definition is the
// one pinned, or the first seen (then pinned). Another is withheld,
// logged once and shown by the probes, until approved.
func (g *Gateway) pinned(r *remote, t protocol.ToolInfo) bool {
	serve, changed := g.pins.verdict(r.key, t.Name, toolHash(t))
	if changed {
		if err := g.pins.save(); err != nil {
			r.logger.Error("gateway: the lock file cannot be written", "file", g.pins.path, "err", err)
		}
	}
	if serve {
		r.leaveOut("tool "+t.Name, "")
		return true
	}
	why := fmt.Sprintf("its definition changed since it was pinned; withheld until approved (sake gateway approve %s/%s)", r.key, t.Name)
	if changed {
		r.logger.Warn("gateway: a tool's definition changed; withheld until approved", "server", r.key, "tool", t.Name, "approve", "sake gateway approve "+r.key+"/"+t.Name)
	}
	r.leaveOut("tool "+t.Name, why)
	return false
}

// reloadLock reads the lock file again (after `sake gateway approve`)
// and reconnects each pinning entry that has a withheld tool now
// approved, so that the tool is served.
func (g *Gateway) reloadLock() error {
	if g.pins.path == "" {
		return nil
	}
	d, err := readLock(g.pins.path)
	if err != nil {
		g.o.logger.Error("gateway: the lock file was not reloaded", "err", err)
		return err
	}
	g.pins.mu.Lock()
	old := g.pins.data
	g.pins.data = d
	var approved []string
	for key, e := range old.Servers {
		ne := d.Servers[key]
		for tool, h := range e.Pending {
			if ne != nil && ne.Tools[tool] == h {
				approved = append(approved, key)
				break
			}
		}
	}
	g.pins.mu.Unlock()
	sort.Strings(approved)
	for _, key := range approved {
		g.o.logger.Info("gateway: a changed tool was approved; reconnecting its server", "server", key)
		g.restart(key)
	}
	return nil
}

// restart stops the remote of key and starts it again.
func (g *Gateway) restart(key string) {
	g.reload.applying.Lock()
	defer g.reload.applying.Unlock()
	if g.ctx.Err() != nil {
		return
	}
	g.mu.Lock()
	var old, fresh *remote
	for i, r := range g.remotes {
		if r.key == key {
			old = r
			fresh = g.newRemote(r.key, r.entry, r.logger)
			fresh.pin = r.pin
			g.remotes[i] = fresh
		}
	}
	g.reroute()
	g.mu.Unlock()
	if old == nil {
		return
	}
	old.stop()
	<-old.done
	g.start(fresh)
}

// Approve approves, in the lock file at lockPath, the changed tool
// definitions withheld by a gateway: those of server (every server when
// "") and tool (every tool of it when ""). It returns the approved ones
// as server/tool. A running gateway that watches its configuration's
// directory (or is sent SIGHUP) serves them at once.
func Approve(lockPath, server, tool string) ([]string, error) {
	d, err := readLock(lockPath)
	if err != nil {
		return nil, err
	}
	var done []string
	for key, e := range d.Servers {
		if server != "" && key != server {
			continue
		}
		for name, h := range e.Pending {
			if tool != "" && name != tool {
				continue
			}
			e.Tools[name] = h
			delete(e.Pending, name)
			done = append(done, key+"/"+name)
		}
		if len(e.Pending) == 0 {
			e.Pending = nil
		}
	}
	sort.Strings(done)
	if len(done) == 0 {
		return nil, nil
	}
	return done, writeLock(lockPath, d)
}
