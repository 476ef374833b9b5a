package gateway

import (
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
)

// baseEnv are the variables of the gateway's environment every stdio
// child gets: what a program needs to find its tools, its home, its
// language and a temporary directory, and nothing that carries a secret.
var baseEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TMP", "TEMP",
	// Windows needs these to start most programs.
	"SYSTEMROOT", "WINDIR", "COMSPEC", "PATHEXT", "USERPROFILE", "APPDATA", "LOCALAPPDATA", "PROGRAMDATA",
}

// InheritAll, as an item of Entry.InheritEnv, passes the gateway's whole
// environment to the child.
const InheritAll = "*"

// childEnv is the environment of e's command: the base variables and
// those e inherits, from environ, then e's own Env (which wins), sorted.
func childEnv(e Entry, environ []string) []string {
	all := slices.Contains(e.InheritEnv, InheritAll)
	keep := func(name string) bool {
		if all || strings.HasPrefix(name, "LC_") || strings.HasPrefix(name, "XDG_") || slices.Contains(e.InheritEnv, name) {
			return true
		}
		if runtime.GOOS == "windows" {
			name = strings.ToUpper(name)
		}
		return slices.Contains(baseEnv, name)
	}
	var out []string
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if _, own := e.Env[name]; own || !keep(name) {
			continue
		}
		out = append(out, kv)
	}
	for k, v := range e.Env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// commandEnv is childEnv of the gateway's own environment.
func commandEnv(e Entry) []string { return childEnv(e, os.Environ()) }
