package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

const installUsage = `usage: sake install CLIENT [flags] BINARY [ARGS...] | URL

Install adds the server BINARY (started with ARGS) to the configuration
file of an MCP client, CLIENT being one of:

	claude-desktop  Claude Desktop: claude_desktop_config.json, mcpServers
	claude-code     Claude Code (user scope): ~/.claude.json, mcpServers
	cursor          Cursor: ~/.cursor/mcp.json, mcpServers
	vscode          VS Code (user profile): mcp.json, servers

The binary is written with its absolute path (clients start servers from
another directory); a name without a slash is looked up on PATH. The file
is merged, never overwritten: every other entry and setting stays as it
was, the old file is kept beside it as FILE.bak (FILE.bak.1, ... when that
exists), and a file that is not valid JSON is refused untouched. A server
of the same name is replaced only with -force. -dry-run prints the file as
it would be written and changes nothing. VS Code's mcp.json may have
comments and trailing commas (JSONC): they are kept, and the file is laid
out again in its style.

A URL (a Streamable HTTP endpoint, such as the one sake dev serves) is
added as a remote server, with -name, to Claude Code, Cursor and VS Code;
Claude Desktop takes remote servers in its settings instead.

Examples:

	go build -o bin/quickstart ./examples/quickstart
	sake install claude-desktop bin/quickstart
	sake install vscode -name notes -env NOTES_DIR=$HOME/notes bin/notes -read-only
	sake install claude-code -name notes http://127.0.0.1:8080/mcp
`

// mcpClient is a client whose configuration install edits.
type mcpClient struct {
	name, title string
	key         string // the member that holds the servers
	typed       bool   // entries carry "type": "stdio"
	path        func(e *env) (string, error)
}

var mcpClients = []mcpClient{
	{"claude-desktop", "Claude Desktop", "mcpServers", false, func(e *env) (string, error) {
		return appConfig(e, "Claude", "claude_desktop_config.json")
	}},
	{"claude-code", "Claude Code", "mcpServers", true, func(e *env) (string, error) {
		return inHome(e, ".claude.json")
	}},
	{"cursor", "Cursor", "mcpServers", false, func(e *env) (string, error) {
		return inHome(e, ".cursor", "mcp.json")
	}},
	{"vscode", "VS Code", "servers", true, func(e *env) (string, error) {
		return appConfig(e, "Code", "User", "mcp.json")
	}},
}

// home is the user's home directory.
func home(e *env) (string, error) {
	h := e.getenv("HOME")
	if e.goos == "windows" && h == "" {
		h = e.getenv("USERPROFILE")
	}
	if h == "" {
		return "", errors.New("cannot find your home directory: set HOME, or give the file with -config")
	}
	return h, nil
}

func inHome(e *env, elem ...string) (string, error) {
	h, err := home(e)
	if err != nil {
		return "", err
	}
	return filepath.Join(append([]string{h}, elem...)...), nil
}

// appConfig is a file in an application's configuration directory:
// ~/Library/Application Support on macOS, %APPDATA% on Windows,
// $XDG_CONFIG_HOME (~/.config) elsewhere.
func appConfig(e *env, elem ...string) (string, error) {
	var base string
	switch e.goos {
	case "darwin":
		h, err := home(e)
		if err != nil {
			return "", err
		}
		base = filepath.Join(h, "Library", "Application Support")
	case "windows":
		base = e.getenv("APPDATA")
		if base == "" {
			return "", errors.New("cannot find your application data directory: set APPDATA, or give the file with -config")
		}
	default:
		base = e.getenv("XDG_CONFIG_HOME")
		if base == "" {
			h, err := home(e)
			if err != nil {
				return "", err
			}
			base = filepath.Join(h, ".config")
		}
	}
	return filepath.Join(append([]string{base}, elem...)...), nil
}

// envList gathers -env values.
type envList []member

func (l *envList) String() string { return "" }

func (l *envList) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return fmt.Errorf("want NAME=value, not %q", v)
	}
	b, _ := marshal(val)
	*l = append(*l, member{k, b})
	return nil
}

func clientNames() string {
	var names []string
	for _, c := range mcpClients {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

func runInstall(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "install", installUsage)
	name := fs.String("name", "", "the server's name in the client (default: the binary's name)")
	dryRun := fs.Bool("dry-run", false, "print the configuration as it would be written, change nothing")
	force := fs.Bool("force", false, "replace a server of the same name")
	config := fs.String("config", "", "the configuration `file` to edit instead of the client's usual one")
	var envs envList
	fs.Var(&envs, "env", "`NAME=value` in the server's environment (repeatable)")
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if err := parse(fs, e, args); err != nil {
			return err
		}
		return usagef("name the client first: sake install CLIENT [flags] BINARY [ARGS...], CLIENT one of %s", clientNames())
	}
	var mc *mcpClient
	for i := range mcpClients {
		if mcpClients[i].name == args[0] {
			mc = &mcpClients[i]
		}
	}
	if mc == nil {
		return usagef("unknown client %q: want one of %s", args[0], clientNames())
	}
	if err := parse(fs, e, args[1:]); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usagef("name the server's binary: sake install %s [flags] BINARY [ARGS...]", mc.name)
	}
	var bin string
	var entry json.RawMessage
	var err error
	if isURL(fs.Arg(0)) {
		bin = fs.Arg(0)
		switch {
		case mc.name == "claude-desktop":
			return fmt.Errorf("the configuration file of Claude Desktop starts local servers only: add %s in Claude Desktop's settings (Connectors), or install the server's binary", bin)
		case fs.NArg() > 1 || len(envs) > 0:
			return usagef("a URL takes no arguments and no -env")
		case *name == "":
			return usagef("name the server with -name when installing a URL")
		}
		entry = mc.urlEntry(bin)
	} else {
		if bin, err = absBinary(e, fs.Arg(0)); err != nil {
			return err
		}
		if entry, err = mc.entry(bin, fs.Args()[1:], envs); err != nil {
			return err
		}
	}
	if *name == "" {
		*name = strings.TrimSuffix(filepath.Base(bin), ".exe")
	}
	if strings.TrimSpace(*name) == "" || strings.ContainsAny(*name, " \t\n") {
		return usagef("-name %q: give a name without spaces", *name)
	}
	path := *config
	if path == "" {
		if path, err = mc.path(e); err != nil {
			return err
		}
	}
	old, existed, err := readConfig(path)
	if err != nil {
		return err
	}
	merge := mergeServer
	if mc.name == "vscode" {
		merge = mergeServerJSONC
	}
	updated, replaced, err := merge(path, old, mc.key, *name, entry, *force)
	if err != nil {
		return err
	}
	if *dryRun {
		fmt.Fprintf(e.stderr, "sake install: would write %s (nothing was changed):\n", path)
		_, err := e.stdout.Write(updated)
		return err
	}
	backup := ""
	if existed {
		if backup, err = writeBackup(path, old); err != nil {
			return err
		}
	}
	if err := writeFileAtomic(path, updated); err != nil {
		return err
	}
	verb := "added"
	if replaced {
		verb = "replaced"
	}
	fmt.Fprintf(e.stdout, "%s the server %q in %s\n", verb, *name, path)
	if backup != "" {
		fmt.Fprintf(e.stdout, "the old file is in %s\n", backup)
	}
	if isURL(bin) {
		fmt.Fprintf(e.stdout, "Restart %s (or reload its MCP servers) to connect to %s.\n", mc.title, bin)
	} else {
		fmt.Fprintf(e.stdout, "Restart %s (or reload its MCP servers) to start %s.\n", mc.title, bin)
	}
	return nil
}

// absBinary finds the binary and returns its absolute path.
func absBinary(e *env, bin string) (string, error) {
	p := bin
	if !strings.ContainsRune(bin, '/') && !strings.ContainsRune(bin, filepath.Separator) {
		found, err := e.lookPath(bin)
		if err != nil {
			return "", fmt.Errorf("cannot find %q on PATH: build the server first (go build -o bin/%s .) and give its path", bin, bin)
		}
		p = found
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	switch {
	case err != nil:
		return "", fmt.Errorf("cannot find the server's binary %s: build it first (go build -o %s .)", abs, bin)
	case st.IsDir():
		return "", fmt.Errorf("%s is a directory: give the server's binary (go build -o bin/server ./%s)", abs, bin)
	case e.goos != "windows" && st.Mode()&0o111 == 0:
		return "", fmt.Errorf("%s is not executable (chmod +x it, or build it with go build)", abs)
	}
	return abs, nil
}

// entry is the server's entry in the client's configuration.
func (mc *mcpClient) entry(bin string, args []string, envs envList) (json.RawMessage, error) {
	var o object
	if mc.typed {
		o.set("type", json.RawMessage(`"stdio"`))
	}
	b, err := marshal(bin)
	if err != nil {
		return nil, err
	}
	o.set("command", b)
	if args == nil {
		args = []string{}
	}
	if b, err = marshal(args); err != nil {
		return nil, err
	}
	o.set("args", b)
	if len(envs) > 0 {
		eb, err := object(envs).MarshalJSON()
		if err != nil {
			return nil, err
		}
		o.set("env", eb)
	}
	return o.MarshalJSON()
}

// urlEntry is the entry of a Streamable HTTP server.
func (mc *mcpClient) urlEntry(url string) json.RawMessage {
	var o object
	if mc.typed {
		o.set("type", json.RawMessage(`"http"`))
	}
	b, _ := marshal(url)
	o.set("url", b)
	out, _ := o.MarshalJSON()
	return out
}

// marshal is json.Marshal without HTML escaping (paths and arguments
// stay as typed).
func marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// readConfig reads the configuration file; a missing file is empty.
func readConfig(path string) (data []byte, existed bool, err error) {
	data, err = os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("cannot read %s: %w", path, err)
	}
	return data, true, nil
}

// mergeServer returns the configuration with the server name set to
// entry under key, everything else as it was.
func mergeServer(path string, old []byte, key, name string, entry json.RawMessage, force bool) (out []byte, replaced bool, err error) {
	var top object
	if len(bytes.TrimSpace(old)) > 0 {
		if top, err = decodeObject(old); err != nil {
			return nil, false, fmt.Errorf("%s is not a JSON object (%v); nothing was changed: fix the file (comments and trailing commas are not JSON) or move it away", path, err)
		}
	}
	var servers object
	if raw, ok := top.get(key); ok && string(raw) != "null" {
		if servers, err = decodeObject(raw); err != nil {
			return nil, false, fmt.Errorf("%s: %q is not a JSON object (%v); nothing was changed: fix it or move the file away", path, key, err)
		}
	}
	if _, ok := servers.get(name); ok {
		if !force {
			return nil, false, fmt.Errorf("%s already has a server named %q; nothing was changed: choose another -name, or replace it with -force", path, name)
		}
		replaced = true
	}
	servers.set(name, entry)
	sb, err := servers.MarshalJSON()
	if err != nil {
		return nil, false, err
	}
	top.set(key, sb)
	tb, err := top.MarshalJSON()
	if err != nil {
		return nil, false, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, tb, "", "  "); err != nil {
		return nil, false, err
	}
	b.WriteByte('\n')
	return b.Bytes(), replaced, nil
}

// maxBackups bounds the numbered backups install looks through.
const maxBackups = 100

// writeBackup keeps the old file as path.bak, or path.bak.N when that
// exists, and returns its name.
func writeBackup(path string, old []byte) (string, error) {
	mode := fs.FileMode(0o600)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	for i := 0; i < maxBackups; i++ {
		name := path + ".bak"
		if i > 0 {
			name = fmt.Sprintf("%s.bak.%d", path, i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("cannot back up %s: %w; nothing was changed", path, err)
		}
		_, werr := f.Write(old)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			os.Remove(name)
			return "", fmt.Errorf("cannot back up %s: %w; nothing was changed", path, werr)
		}
		return name, nil
	}
	return "", fmt.Errorf("cannot back up %s: %s.bak to .bak.%d exist; remove old backups; nothing was changed", path, path, maxBackups-1)
}

// writeFileAtomic replaces path with data through a temporary file in the
// same directory, keeping the old file's permissions (0600 for a new one:
// a client's configuration may hold secrets).
func writeFileAtomic(path string, data []byte) error {
	mode := fs.FileMode(0o600)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cannot create %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}
