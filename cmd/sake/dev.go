package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"
)

const devUsage = `usage: sake dev [flags] [PKG] [-- ARGS...]

Dev builds the server package PKG (a directory or an import path; the
current directory by default), runs it, and serves it on -http ADDR. It
rebuilds and restarts the server whenever a file of a package it is built
from changes: the packages of its own module (tests excepted), its go.mod
and go.sum. It prints how to point the MCP Inspector and Claude Code at the
server. Ctrl-C stops it.

Dev listens on ADDR itself and passes the requests to the server, which it
starts with -http-flag and a private loopback address added to ARGS. A new
build replaces the running server only once it serves: a build that fails,
or a server that exits before it listens (an error in its construction), is
shown and the previous build keeps serving. When sake_gen.go is out of date
with the package's doc comments, dev says so (run go generate).

A restarted server loses its 2025-11-25 sessions (clients start new ones);
2026-07-28 clients, which keep no session, do not notice.

Examples:

	sake dev
	sake dev -http 127.0.0.1:9000 ./cmd/notes -- -db notes.db
`

// maxWatchedFiles bounds the files dev watches; beyond it, a change in the
// files left out goes unseen (a warning says so).
const maxWatchedFiles = 10000

func runDev(ctx context.Context, e *env, args []string) error {
	flags := newFlags(e, "dev", devUsage)
	addr := flags.String("http", "127.0.0.1:8080", "the address dev serves the server on")
	httpFlag := flags.String("http-flag", "-http", "the server's flag that makes it serve HTTP on an address (dev gives it a private one)")
	interval := flags.Duration("interval", 500*time.Millisecond, "how often the files are checked for changes")
	wait := flags.Duration("wait", 30*time.Second, "how long a started server may take to listen")
	if err := parse(flags, e, args); err != nil {
		return err
	}
	rest := flags.Args()
	pkg := "."
	if len(rest) > 0 && rest[0] != "--" {
		pkg, rest = rest[0], rest[1:]
	}
	if len(rest) > 0 {
		if rest[0] != "--" {
			return usagef("name one package; the server's own arguments go after --: sake dev [flags] [PKG] [-- ARGS...]")
		}
		rest = rest[1:]
	}
	if *interval <= 0 {
		return usagef("-interval must be positive")
	}
	d := &devServer{e: e, pkg: pkg, addr: *addr, args: rest, httpFlag: *httpFlag, wait: *wait}
	if st, err := os.Stat(pkg); err == nil && st.IsDir() {
		d.dir, d.pkg = pkg, "."
	}
	tmp, err := os.MkdirTemp("", "sake-dev-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	d.tmp = tmp
	defer d.stopServer()

	url := "http://" + *addr + "/mcp"
	if err := d.rebuild(ctx); err != nil {
		return err
	}
	stopProxy, err := d.serveProxy()
	if err != nil {
		return err
	}
	defer stopProxy()
	name := programName(filepath.Base(d.absDir()))
	fmt.Fprintf(e.stdout, "sake dev: %s serves %s; it is rebuilt and restarted when its files change (Ctrl-C stops it).\n", pkg, url)
	fmt.Fprintf(e.stdout, "  MCP Inspector: npx @modelcontextprotocol/inspector, then Streamable HTTP, URL %s\n", url)
	fmt.Fprintf(e.stdout, "  Claude Code:   claude mcp add --transport http %s %s\n", name, url)
	fmt.Fprintf(e.stdout, "  sake:          sake inspect %s\n", url)
	last := d.fingerprint()
	tick := time.NewTicker(*interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			fmt.Fprintln(e.stdout, "sake dev: stopped")
			return nil
		case <-tick.C:
		}
		fp := d.fingerprint()
		if fp == last {
			continue
		}
		last = fp
		fmt.Fprintln(e.stdout, "sake dev: a file changed; rebuilding")
		if err := d.rebuild(ctx); err != nil {
			if ctx.Err() != nil {
				continue
			}
			fmt.Fprintf(e.stdout, "sake dev: %v\n", err)
		}
	}
}

// devServer is the server dev builds and runs.
type devServer struct {
	e          *env
	dir        string   // where the go commands run ("" for the current directory)
	pkg        string   // the package, in dir
	addr       string   // where dev serves
	args       []string // the server's own arguments
	httpFlag   string   // the server's flag for its address
	target     atomic.Pointer[url.URL]
	wait       time.Duration
	tmp        string
	builds     int
	srv        *process
	watched    []string // directories
	moduleRoot string
	warned     bool
	genWarned  []byte // the sake_gen.go content last warned about
}

// absDir is the package's directory.
func (d *devServer) absDir() string {
	if len(d.watched) > 0 {
		return d.watched[0]
	}
	abs, _ := filepath.Abs(filepath.Join(d.dir, d.pkg))
	return abs
}

func (d *devServer) goCmd(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = d.dir
	return cmd
}

// rebuild builds the package and, when that works and the new server
// listens, makes it the one served, then stops the previous one.
func (d *devServer) rebuild(ctx context.Context) error {
	d.builds++
	bin := filepath.Join(d.tmp, fmt.Sprintf("server-%d", d.builds))
	var out bytes.Buffer
	cmd := d.goCmd(ctx, "build", "-o", bin, d.pkg)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if d.srv != nil {
			return fmt.Errorf("the build failed; the previous build keeps serving:\n%s", strings.TrimSpace(out.String()))
		}
		return fmt.Errorf("the build failed (%v):\n%s", err, strings.TrimSpace(out.String()))
	}
	d.listPackages(ctx)
	d.checkGenerated()
	private, err := freeAddr()
	if err != nil {
		return err
	}
	args := append(append([]string(nil), d.args...), d.httpFlag, private)
	p, err := startProcess(bin, args, d.e.stderr, d.e.stderr)
	if err != nil {
		return err
	}
	if err := p.waitListening(ctx, private, d.wait); err != nil {
		p.stop()
		keeps := ""
		if d.srv != nil {
			keeps = "; the previous build keeps serving"
		}
		if errors.Is(err, errExited) {
			return fmt.Errorf("the new server exited before it listened (its standard error is above)%s", keeps)
		}
		if ctx.Err() != nil {
			return err
		}
		return fmt.Errorf("%v%s; is %s ADDR how the server serves HTTP? (-http-flag names another flag)", err, keeps, d.httpFlag)
	}
	d.target.Store(&url.URL{Scheme: "http", Host: private})
	d.stopServer()
	d.srv = p
	if d.builds > 1 {
		fmt.Fprintf(d.e.stdout, "sake dev: restarted, serving http://%s/mcp\n", d.addr)
	}
	return nil
}

func (d *devServer) stopServer() {
	if d.srv != nil {
		d.srv.stop()
		d.srv = nil
	}
}

// serveProxy listens on dev's address and passes every request to the
// server of the latest good build (streams flushed as they come). The
// request keeps its Host, so the server sees the address the client used.
func (d *devServer) serveProxy() (stop func(), err error) {
	ln, err := net.Listen("tcp", d.addr)
	if err != nil {
		return nil, fmt.Errorf("cannot serve on -http %s: %w", d.addr, err)
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(d.target.Load())
			r.Out.Host = r.In.Host
		},
		FlushInterval: -1,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			http.Error(w, "sake dev: the server does not answer: "+err.Error(), http.StatusBadGateway)
		},
	}
	srv := &http.Server{Handler: rp, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return func() { _ = srv.Close() }, nil
}

// checkGenerated warns when the package's sake_gen.go differs from what
// sake gen would write now: the server would describe its components
// with the old doc comments.
func (d *devServer) checkGenerated() {
	dir := d.absDir()
	old, err := os.ReadFile(filepath.Join(dir, genOutput))
	if err != nil {
		d.genWarned = nil
		return
	}
	want, _, err := generateDocs(dir, genOutput)
	if err != nil || bytes.Equal(old, want) {
		d.genWarned = nil
		return
	}
	if bytes.Equal(old, d.genWarned) {
		return
	}
	d.genWarned = old
	fmt.Fprintf(d.e.stdout, "sake dev: %s is out of date with the doc comments, so the server shows the old descriptions: run go generate (or sake gen) in %s\n", genOutput, dir)
}

// listPackages finds the directories of the packages of the main module
// the server is built from, and the module's root.
func (d *devServer) listPackages(ctx context.Context) {
	out, err := d.goCmd(ctx, "list", "-deps", "-f", "{{if .Module}}{{if .Module.Main}}{{.Dir}}\t{{.Module.Dir}}{{end}}{{end}}", d.pkg).Output()
	if err != nil {
		return
	}
	var dirs []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		dir, root, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		dirs = append(dirs, dir)
		d.moduleRoot = root
	}
	// The package itself first (go list -deps lists it last).
	for i, j := 0, len(dirs)-1; i < j; i, j = i+1, j-1 {
		dirs[i], dirs[j] = dirs[j], dirs[i]
	}
	d.watched = dirs
}

// fingerprint sums the names, sizes and times of the watched files.
func (d *devServer) fingerprint() uint64 {
	h := fnv.New64a()
	n := 0
	add := func(path string, info os.FileInfo) {
		n++
		fmt.Fprintf(h, "%s\x00%d\x00%d\n", path, info.Size(), info.ModTime().UnixNano())
	}
	if d.moduleRoot != "" {
		for _, f := range []string{"go.mod", "go.sum"} {
			p := filepath.Join(d.moduleRoot, f)
			if info, err := os.Stat(p); err == nil {
				add(p, info)
			}
		}
	}
	for _, dir := range d.watched {
		entries, err := os.ReadDir(dir)
		if err != nil {
			fmt.Fprintf(h, "%s\x00gone\n", dir)
			continue
		}
		names := make([]string, 0, len(entries))
		for _, de := range entries {
			name := de.Name()
			if de.IsDir() || strings.HasPrefix(name, ".") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if n >= maxWatchedFiles {
				if !d.warned {
					fmt.Fprintf(d.e.stderr, "sake dev: watching the first %d files only\n", maxWatchedFiles)
					d.warned = true
				}
				return h.Sum64()
			}
			p := filepath.Join(dir, name)
			if info, err := os.Stat(p); err == nil {
				add(p, info)
			}
		}
	}
	return h.Sum64()
}
