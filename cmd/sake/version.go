package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

// releaseVersion is the version of the newest release. A release is
// tagged on the commit where this constant, the newest file of api/ and
// the newest version heading of CHANGELOG.md all name it
// (TestReleaseVersionMatchesRecord); a binary without a module version of
// its own (built inside a checkout, without VCS stamping) prints it.
const releaseVersion = "v0.1.0"

// modulePath is the module whose version sake prints.
const modulePath = "github.com/sakemcp/sake-go"

const versionUsage = `usage: sake version [-v]

Version prints the version of the sake-go module sake was built from: the
version go install fetched (sake@v0.2.0), the pseudo-version go build
stamped in a checkout, or else the newest release's version followed by
"(devel)". -v adds the Go version, the platform and, when it was stamped,
the commit.
`

func runVersion(_ context.Context, e *env, args []string) error {
	flags := newFlags(e, "version", versionUsage)
	verbose := flags.Bool("v", false, "print the Go version, the platform and the commit too")
	if err := parse(flags, e, args); err != nil {
		return err
	}
	if flags.NArg() > 0 {
		return usagef("version takes no arguments")
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprintf(e.stdout, "sake %s\n", moduleVersion(info))
	if *verbose {
		fmt.Fprintf(e.stdout, "go %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
		if info != nil {
			for _, s := range info.Settings {
				if s.Key == "vcs.revision" || s.Key == "vcs.time" || s.Key == "vcs.modified" {
					fmt.Fprintf(e.stdout, "%s %s\n", s.Key, s.Value)
				}
			}
		}
	}
	return nil
}

// moduleVersion is the version of the sake-go module in info: the main
// module's when sake is built in it, the dependency's when sake is linked
// into another program's build, else releaseVersion marked "(devel)".
func moduleVersion(info *debug.BuildInfo) string {
	if info != nil {
		mod := &info.Main
		if mod.Path != modulePath {
			mod = nil
			for _, dep := range info.Deps {
				if dep.Path == modulePath {
					mod = dep
					if dep.Replace != nil {
						mod = dep.Replace
					}
				}
			}
		}
		if mod != nil && mod.Version != "" && mod.Version != "(devel)" {
			return mod.Version
		}
	}
	return releaseVersion + " (devel)"
}
