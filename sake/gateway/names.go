package gateway

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"

	"github.com/sakemcp/sake-go/sake/proxy"
)

// MaxPublishedName is the longest tool or prompt name the gateway
// publishes: 64, what the clients of the large model APIs accept.
const MaxPublishedName = 64

// MaxMountedNamespace is the longest namespace a remote is mounted
// under: 32, which leaves at least 31 characters of each name.
const MaxMountedNamespace = 32

// publishableRE is what every client accepts as a tool or prompt name.
var publishableRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// nameHashLen is the length of the hash a changed name ends with.
const nameHashLen = 6

// shortHash is the first nameHashLen hex digits of s's SHA-256.
func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:nameHashLen]
}

// mountedNamespace is the namespace an entry's components are published
// under: ns with every character that is not a letter, digit or dash
// made a dash ("github.com" → "github-com", "my_server" → "my-server"),
// an "n" before a first character that is not a letter, and, when longer
// than MaxMountedNamespace, cut with a short hash of ns at the end. Two
// entries that come to one namespace are a configuration error.
func mountedNamespace(ns string) string {
	if ns == "" {
		return ""
	}
	b := []byte(ns)
	for i, c := range b {
		if !isLetter(c) && !isDigit(c) && c != '-' {
			b[i] = '-'
		}
	}
	out := string(b)
	if !isLetter(out[0]) {
		out = "n" + out
	}
	if len(out) > MaxMountedNamespace {
		out = out[:MaxMountedNamespace-nameHashLen-1] + "-" + shortHash(ns)
	}
	return out
}

// publishedName is the local name of a remote tool or prompt mounted
// under ns: its own when namespace_name is a name every client accepts
// (^[a-zA-Z0-9_-]{1,64}$); else its characters outside that set made
// underscores, cut to fit, and ended with "_" and a short hash of the
// remote name, so that two remote names never meet ("report.v2 daily"
// becomes "report_v2_daily_1f0c3a"). The gateway routes the local name
// back to the remote one.
func publishedName(ns, name string) string {
	budget := MaxPublishedName
	if ns != "" {
		budget -= len(ns) + 1
	}
	if len(name) <= budget && publishableRE.MatchString(name) {
		return name
	}
	b := make([]byte, 0, len(name))
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isLetter(c) && !isDigit(c) && c != '-' && c != '_' {
			c = '_'
		}
		b = append(b, c)
	}
	suffix := "_" + shortHash(name)
	if len(b)+len(suffix) > budget {
		b = b[:budget-len(suffix)]
	}
	return string(b) + suffix
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

// nameOptions are the proxy options that publish r's tools and prompts
// under names every client accepts, and leave out (logged, and listed by
// Status and the probes) a component that still cannot be served.
func (g *Gateway) nameOptions(r *remote) []proxy.Option {
	return []proxy.Option{
		proxy.Rename(func(kind, remote string) string {
			local := publishedName(r.ns, remote)
			if local != remote {
				r.logger.Info("gateway: a name clients refuse is published under another", "server", r.key, "kind", kind, "name", remote, "published", local)
			}
			return local
		}),
		proxy.LeaveOut(func(kind, remote string, err error) {
			r.logger.Warn("gateway: a component the gateway cannot serve is left out; the rest of its server is served", "server", r.key, "kind", kind, "name", remote, "err", err)
			r.leaveOut(kind+" "+remote, err.Error())
		}),
	}
}
