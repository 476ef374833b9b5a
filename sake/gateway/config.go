package gateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/sakemcp/sake-go/sake"
)

// MaxEntries bounds the servers of one configuration: 64, the most one
// sake server mounts.
const MaxEntries = 64

// MaxConfigBytes bounds the size of a configuration file: 1 MiB.
const MaxConfigBytes = 1 << 20

// Config is a gateway's configuration: the servers it mounts, by name.
type Config struct {
	// Servers are the entries of "mcpServers" (Claude Desktop, Cursor)
	// or "servers" (VS Code), by key.
	Servers map[string]Entry
	// Pin pins the tool definitions of every entry that does not say
	// otherwise (Entry.Pin): the file's top-level "pin".
	Pin bool
	// Auth is the file's "auth" section: the issuer whose tokens the
	// gateway accepts, nil when it takes callers as its transport does.
	Auth *Auth
}

// Entry is one server of the configuration: a command (stdio) or a URL
// (Streamable HTTP).
type Entry struct {
	// Command and Args start a stdio server, in the working directory
	// Cwd. Its environment is not the gateway's: it gets a minimal base
	// (PATH, HOME, USER, LOGNAME, SHELL, LANG, LANGUAGE, LC_*, TZ, XDG_*
	// and the temporary directory's TMPDIR, TMP, TEMP; on Windows also what
	// programs need to start), the variables InheritEnv names, and Env,
	// which wins. So a third-party server does not read the secrets the
	// gateway holds for other entries.
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	// InheritEnv names more variables of the gateway's environment for a
	// stdio server; "*" (InheritAll) passes it the whole environment.
	InheritEnv []string `json:"inheritEnv,omitempty"`
	// URL is a Streamable HTTP endpoint, sent Headers with every request
	// (for example "Authorization": "Bearer ..." for a static token).
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// OAuth signs the gateway in to an HTTP server with credentials of its
	// own, as a machine client (the client credentials grant) at the
	// authorization server the server names in its challenge.
	OAuth *OAuth `json:"oauth,omitempty"`
	// Type is "stdio" or "http" ("streamable-http" too); empty, it
	// follows from Command or URL. "sse", the transport of 2024-11-05, is
	// refused.
	Type string `json:"type,omitempty"`
	// Namespace, when set, is the namespace the entry is mounted under in
	// place of its key; "" merges its components with the gateway's.
	Namespace *string `json:"namespace,omitempty"`
	// Versions, when set, pins the entry's components to a version range
	// (sake.VersionFilter's Range, e.g. ">=2.0 <3"): a component whose
	// version, as the server lists it, is outside the range is left out
	// of the gateway, so that a server moving to a version the gateway's
	// clients are not ready for drops the component rather than changing
	// it under them. Components without a version pass.
	Versions string `json:"versions,omitempty"`
	// Disabled leaves the entry out. Changed while the gateway runs (see
	// Gateway.WatchConfig), it stops or starts the entry.
	Disabled bool `json:"disabled,omitempty"`
	// Pin, when set, says whether the entry's tool definitions are
	// pinned (else the configuration's Pin does): the hash of each tool's
	// name, description and schemas is recorded the first time it is seen
	// (in the LockFile), and a tool whose definition later differs,
	// including after list_changed, is withheld, logged and listed by the
	// probes until approved (Approve, `sake gateway approve`).
	Pin *bool `json:"pin,omitempty"`
	// Access says which callers see and call the entry's components (and,
	// under "tools", each tool's); nil lets in every caller the transport
	// lets in.
	Access *Access `json:"access,omitempty"`
	// Required makes the gateway ready (Gateway.Ready, /readyz) only
	// while this entry is connected.
	Required bool `json:"required,omitempty"`
}

// OAuth is how the gateway signs in to an HTTP server's authorization
// server: as a pre-registered machine client of its own (ClientID and
// ClientSecret, the client credentials grant), or, with PerUser, as each
// of its callers in turn. Its values may name the environment
// ("${env:BILLING_SECRET}"), so that secrets stay out of the file.
type OAuth struct {
	// PerUser signs each caller of the gateway in to the server with
	// their own account (the authorization code flow with PKCE, asked of
	// the caller through URL elicitation) and calls the server as that
	// caller. ClientID (and ClientSecret) are then optional: without, the
	// gateway registers itself at the authorization server. It needs the
	// gateway's UserTokens and PublicURL, a namespace, and callers with a
	// subject (the "auth" section); see the package documentation.
	PerUser bool `json:"perUser,omitempty"`
	// ClientID and ClientSecret are the gateway's credentials there.
	ClientID     string `json:"clientId"`
	ClientSecret string `json:"clientSecret"`
	// Issuer, when set, is the only authorization server the gateway
	// signs in at: a server whose authorization server is another (by
	// exact issuer) is not connected, with an error naming the issuer, and
	// the gateway neither registers there nor sends its credentials. Set
	// it whenever the server's metadata is not trusted to name the
	// authorization server.
	Issuer string `json:"issuer,omitempty"`
	// Scopes are asked for beside those the server challenges for.
	Scopes []string `json:"scopes,omitempty"`
}

// file is the configuration as written.
type file struct {
	MCPServers map[string]Entry `json:"mcpServers"`
	Servers    map[string]Entry `json:"servers"`
	Pin        bool             `json:"pin"`
	Auth       *Auth            `json:"auth"`
}

// LoadConfig reads a configuration file (see ParseConfig).
func LoadConfig(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigBytes+1))
	if err != nil {
		return nil, err
	}
	cfg, err := ParseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// ParseConfig reads the JSON of an mcpServers configuration: an object
// with "mcpServers" (or "servers") mapping each key to an Entry. In
// commands, arguments, environment values, URLs and headers, ${NAME} and
// ${env:NAME} are replaced by the gateway's environment variable NAME, so
// that tokens stay out of the file. Every wrong entry is reported at
// once.
func ParseConfig(data []byte) (*Config, error) {
	if len(data) > MaxConfigBytes {
		return nil, fmt.Errorf("gateway: the configuration is larger than %d bytes", MaxConfigBytes)
	}
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("gateway: the configuration is not JSON of the mcpServers form: %w", err)
	}
	servers := f.MCPServers
	if servers == nil {
		servers = f.Servers
	}
	if servers == nil {
		return nil, errors.New(`gateway: the configuration has no "mcpServers" (or "servers") object`)
	}
	cfg := &Config{Servers: map[string]Entry{}, Pin: f.Pin, Auth: f.Auth}
	var problems []string
	if f.Auth != nil {
		f.Auth.Issuer, f.Auth.Audience, f.Auth.JWKSURI = expand(f.Auth.Issuer), expand(f.Auth.Audience), expand(f.Auth.JWKSURI)
		if in := f.Auth.Introspection; in != nil {
			in.Endpoint, in.ClientID, in.ClientSecret = expand(in.Endpoint), expand(in.ClientID), expand(in.ClientSecret)
		}
		if err := f.Auth.check(); err != nil {
			problems = append(problems, err.Error())
		}
	}
	keys := make([]string, 0, len(servers))
	for k := range servers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		e := servers[key]
		if e.Disabled {
			continue
		}
		e.expand()
		if err := e.check(key); err != nil {
			problems = append(problems, fmt.Sprintf("%q: %v", key, err))
			continue
		}
		cfg.Servers[key] = e
	}
	if len(cfg.Servers) > MaxEntries {
		problems = append(problems, fmt.Sprintf("%d servers, more than the %d a gateway mounts", len(cfg.Servers), MaxEntries))
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("gateway: the configuration is wrong: %s", strings.Join(problems, "; "))
	}
	return cfg, nil
}

// namespaceRE is what sake.Server.Mount takes.
var namespaceRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9.-]{0,63}$`)

// NamespaceOf is the namespace an entry asks for: its Namespace, else
// its key. The gateway mounts it made a name every client accepts (dots,
// underscores and other characters become dashes, at most
// MaxMountedNamespace characters; see Status.Namespace).
func (e Entry) NamespaceOf(key string) string {
	if e.Namespace != nil {
		return *e.Namespace
	}
	return key
}

// transport is "stdio" or "http".
func (e Entry) transport() string {
	switch strings.ToLower(e.Type) {
	case "stdio":
		return "stdio"
	case "http", "streamable-http", "streamablehttp":
		return "http"
	case "":
		if e.Command != "" {
			return "stdio"
		}
		return "http"
	}
	return e.Type
}

func (e Entry) check(key string) error {
	// A key is made a namespace (see mountedNamespace); a namespace
	// written out must be one already.
	if ns := e.Namespace; ns != nil && *ns != "" && !namespaceRE.MatchString(*ns) {
		return fmt.Errorf(`the namespace %q is not a letter followed by at most 63 letters, digits, dots and dashes; fix "namespace"`, *ns)
	}
	if err := (sake.VersionFilter{Range: e.Versions}).Check(); err != nil {
		return fmt.Errorf(`"versions": %w`, err)
	}
	switch t := e.transport(); {
	case t == "stdio" && e.Command == "":
		return errors.New(`a stdio server needs "command"`)
	case t == "http" && e.URL == "":
		return errors.New(`needs "command" (stdio) or "url" (Streamable HTTP)`)
	case t == "http" && !strings.HasPrefix(e.URL, "http://") && !strings.HasPrefix(e.URL, "https://"):
		return fmt.Errorf("the url %q is not http:// or https://", e.URL)
	case t == "stdio" && e.URL != "":
		return errors.New(`has both "command" and "url"`)
	case len(e.InheritEnv) > 0 && t != "stdio":
		return errors.New(`"inheritEnv" is for a stdio server ("command")`)
	case e.OAuth != nil && t != "http":
		return errors.New(`"oauth" is for an HTTP server ("url")`)
	case e.OAuth != nil && !e.OAuth.PerUser && (e.OAuth.ClientID == "" || e.OAuth.ClientSecret == ""):
		return errors.New(`"oauth" needs "clientId" and "clientSecret" (or "perUser": true to sign each caller in with their own account)`)
	case e.OAuth != nil && e.OAuth.PerUser && e.OAuth.ClientSecret != "" && e.OAuth.ClientID == "":
		return errors.New(`"oauth" has a "clientSecret" without its "clientId"`)
	case e.perUser() && e.Namespace != nil && *e.Namespace == "":
		return errors.New(`a "perUser" server needs a namespace (its sign_in and sign_out tools are named under it)`)
	case e.OAuth != nil && hasHeader(e.Headers, "Authorization"):
		return errors.New(`has both "oauth" and an "Authorization" header; keep one`)
	case t == "sse":
		return errors.New(`the "sse" transport (2024-11-05) is not supported; use the server's Streamable HTTP endpoint`)
	case t != "stdio" && t != "http":
		return fmt.Errorf("unknown type %q: stdio or http", e.Type)
	}
	return e.Access.check()
}

// expand replaces ${NAME} and ${env:NAME} with the environment's values.
func (e *Entry) expand() {
	e.Command = expand(e.Command)
	e.URL = expand(e.URL)
	e.Cwd = expand(e.Cwd)
	for i, a := range e.Args {
		e.Args[i] = expand(a)
	}
	for k, v := range e.Env {
		e.Env[k] = expand(v)
	}
	for k, v := range e.Headers {
		e.Headers[k] = expand(v)
	}
	if o := e.OAuth; o != nil {
		o.ClientID, o.ClientSecret, o.Issuer = expand(o.ClientID), expand(o.ClientSecret), expand(o.Issuer)
	}
}

// perUser reports whether the entry signs each caller in (OAuth.PerUser).
func (e Entry) perUser() bool { return e.OAuth != nil && e.OAuth.PerUser }

// hasHeader reports whether headers set name, in any case.
func hasHeader(headers map[string]string, name string) bool {
	for k := range headers {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

var varRE = regexp.MustCompile(`\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}`)

func expand(s string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return varRE.ReplaceAllStringFunc(s, func(m string) string {
		return os.Getenv(varRE.FindStringSubmatch(m)[1])
	})
}

// pins reports whether e's tool definitions are pinned.
func (c *Config) pins(e Entry) bool {
	if e.Pin != nil {
		return *e.Pin
	}
	return c.Pin
}
