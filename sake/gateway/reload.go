package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// reloadState is what the gateway knows of its last reload.
type reloadState struct {
	applying sync.Mutex // one reload at a time

	mu      sync.Mutex
	lastErr error     // why the last reload was refused; nil once one succeeds
	at      time.Time // when the last reload was tried
}

// checkConfig is what Apply and New refuse: a wrong entry, two entries
// under one namespace, too many entries.
func checkConfig(cfg *Config) error {
	if cfg == nil || len(cfg.Servers) == 0 {
		return errors.New("gateway: the configuration names no server")
	}
	if len(cfg.Servers) > MaxEntries {
		return fmt.Errorf("gateway: %d servers, more than the %d a gateway mounts", len(cfg.Servers), MaxEntries)
	}
	seen := map[string]string{}
	for _, k := range sortedKeys(cfg.Servers) {
		e := cfg.Servers[k]
		if err := e.check(k); err != nil {
			return fmt.Errorf("gateway: %q: %w", k, err)
		}
		ns := mountedNamespace(e.NamespaceOf(k))
		if other, ok := seen[ns]; ok && ns != "" {
			return fmt.Errorf("gateway: %q and %q are both mounted under namespace %q", other, k, ns)
		}
		seen[ns] = k
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Apply makes the gateway serve cfg, touching only what changed: an
// entry that is new is started, one that is gone (or now "disabled") is
// stopped and its components leave, one whose settings changed is
// stopped and started again; an entry equal to the one running is left
// alone, so its calls in flight and its connection go on as if nothing
// happened. A configuration that does not validate changes nothing and is
// returned as an error, kept for Health until a later reload succeeds.
func (g *Gateway) Apply(cfg *Config) error {
	err := checkConfig(cfg)
	if err == nil {
		err = g.checkReloadable(cfg)
	}
	if err != nil {
		var entries []Entry
		if cfg != nil {
			for _, e := range cfg.Servers {
				entries = append(entries, e)
			}
		}
		err = refused(err, entries)
		g.reloaded(err)
		return err
	}
	g.reload.applying.Lock()
	defer g.reload.applying.Unlock()
	if g.ctx.Err() != nil {
		return errors.New("gateway: closed")
	}
	g.mu.Lock()
	old := make(map[string]*remote, len(g.remotes))
	for _, r := range g.remotes {
		old[r.key] = r
	}
	var next, stopped, started []*remote
	for _, k := range sortedKeys(cfg.Servers) {
		e := cfg.Servers[k]
		if r, ok := old[k]; ok {
			delete(old, k)
			if reflect.DeepEqual(r.entry, e) && r.pin == cfg.pins(e) {
				next = append(next, r)
				continue
			}
			stopped = append(stopped, r)
		}
		// The new entry's secrets are hidden in its records too.
		r := g.newRemote(k, e, redactingLogger(g.o.logger, e))
		r.pin = cfg.pins(e)
		next = append(next, r)
		started = append(started, r)
	}
	for _, k := range sortedKeys(old) {
		stopped = append(stopped, old[k])
	}
	g.remotes = next
	g.reroute()
	g.mu.Unlock()
	// A changed entry is stopped (its components unmounted, its command
	// ended) before its successor mounts under the same namespace.
	for _, r := range stopped {
		r.stop()
		<-r.done
		r.logger.Info("gateway: remote server stopped by a reload", "server", r.key)
	}
	for _, r := range started {
		g.start(r)
		r.logger.Info("gateway: remote server started by a reload", "server", r.key)
	}
	g.reloaded(nil)
	return nil
}

// ReloadFile reads the configuration at path and applies it (see
// Apply). A file that cannot be read, parsed or validated leaves the
// gateway as it was; the error is logged, returned, and shown by Health.
func (g *Gateway) ReloadFile(path string) error {
	cfg, err := LoadConfig(path)
	if err != nil {
		err = refused(err, entriesIn(path))
		g.reloaded(err)
		return err
	}
	if err := g.Apply(cfg); err != nil {
		return err
	}
	return g.reloadLock()
}

// refused is the error of a refused reload, with the secrets of the
// refused entries hidden (it is logged and shown by the probes).
func refused(err error, entries []Entry) error {
	return errors.New(redactor(entries...)(notReloaded + ": " + err.Error()))
}

// entriesIn reads the entries of a file that may not validate, for their
// secrets: what can be read of them.
func entriesIn(path string) []Entry {
	raw, err := readBounded(path, MaxConfigBytes)
	if err != nil {
		return nil
	}
	var f file
	_ = json.Unmarshal(raw, &f)
	var out []Entry
	for _, servers := range []map[string]Entry{f.MCPServers, f.Servers} {
		for _, e := range servers {
			e.expand()
			out = append(out, e)
		}
	}
	return out
}

// notReloaded starts the error of a refused reload.
const notReloaded = "gateway: the configuration was not reloaded, the gateway serves the previous one (fix the file and save it again)"

// reloaded records the outcome of a reload and tells the hook.
func (g *Gateway) reloaded(err error) {
	g.reload.mu.Lock()
	g.reload.lastErr, g.reload.at = err, time.Now()
	g.reload.mu.Unlock()
	if err != nil {
		g.o.logger.Error("gateway: configuration refused; the gateway serves the previous one", "err", err)
	} else {
		g.o.logger.Info("gateway: configuration applied")
	}
	if g.o.hooks.Reloaded != nil {
		g.o.hooks.Reloaded(err)
	}
}

// ReloadError is why the last reload was refused, nil when it succeeded
// (or none was tried).
func (g *Gateway) ReloadError() error {
	g.reload.mu.Lock()
	defer g.reload.mu.Unlock()
	return g.reload.lastErr
}

// reloadSettle is how long the watcher waits after a change of the file
// before reading it: an editor writes a file in several steps.
const reloadSettle = 100 * time.Millisecond

// WatchConfig reloads the configuration at path (see ReloadFile) each
// time it changes, until ctx ends. It watches the file's directory, so
// that a file replaced whole (as editors and Kubernetes ConfigMaps do)
// is seen too; changes that come together are read once. The file is
// read once as the watch begins, so that no change is missed between the
// gateway's start and the watch.
func (g *Gateway) WatchConfig(ctx context.Context, path string) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("gateway: cannot watch the configuration: %w", err)
	}
	defer w.Close()
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	lockAbs, _ := filepath.Abs(g.pins.path)
	if err := w.Add(filepath.Dir(abs)); err != nil {
		return fmt.Errorf("gateway: cannot watch the configuration's directory: %w", err)
	}
	// A change made before the watch began is not missed: the file is
	// read once now.
	_ = g.ReloadFile(abs)
	var settle <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if g.pins.path != "" && filepath.Clean(ev.Name) == lockAbs {
				_ = g.reloadLock()
				continue
			}
			if filepath.Clean(ev.Name) != abs && !isDataLink(ev.Name, abs) {
				continue
			}
			settle = time.After(reloadSettle)
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			g.o.logger.Warn("gateway: watching the configuration", "err", err)
		case <-settle:
			settle = nil
			// Applying an unchanged file changes nothing.
			_ = g.ReloadFile(abs)
		}
	}
}

// isDataLink reports whether name is the "..data" link a Kubernetes
// ConfigMap swaps to replace the files beside it.
func isDataLink(name, file string) bool {
	return filepath.Dir(name) == filepath.Dir(file) && filepath.Base(name) == "..data"
}
