package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
)

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1 // the command ran and failed: a server error, a differing snapshot
	exitUsage = 2 // the command line is wrong
)

// env is what a subcommand may use of the world: tests give their own.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	goos           string
	lookPath       func(string) (string, error)
	// userConfigDir is where sign-ins are kept (os.UserConfigDir); nil
	// keeps none.
	userConfigDir func() (string, error)
	// openBrowser opens a URL in the user's browser; nil opens none.
	openBrowser func(url string) error
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	e := &env{
		stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
		getenv: os.Getenv, goos: runtime.GOOS, lookPath: exec.LookPath,
		userConfigDir: os.UserConfigDir,
	}
	e.openBrowser = systemBrowser(e)
	code := run(ctx, os.Args[1:], e)
	stop()
	os.Exit(code)
}

// command is one subcommand.
type command struct {
	name, summary string
	run           func(ctx context.Context, e *env, args []string) error
}

var commands []command

func init() {
	commands = []command{
		{"inspect", "print a server's tools, resources, templates, prompts and capabilities", runInspect},
		{"call", "call a tool and print its result", runCall},
		{"logout", "forget the sign-in kept for a server's URL", runLogout},
		{"install", "add a server to Claude Desktop, Claude Code, Cursor or VS Code", runInstall},
		{"snapshot", "write or compare a golden file of a server's surface", runSnapshot},
		{"new", "create a module with a server, its tests and a main", runNew},
		{"conformance", "run the official MCP conformance suite against a server", runConformance},
		{"dev", "build and run a server, rebuilding it when its files change", runDev},
		{"gen", "register a package's doc comments as its descriptions (go:generate)", runGen},
		{"openapi", "serve the HTTP API of an OpenAPI document as an MCP server", runOpenAPI},
		{"version", "print the version of sake", runVersion},
		{"gateway", "serve the servers of an mcpServers file as one, reloadable, with health probes", runGateway},
	}
}

// run runs the command line args (without the program name) and returns
// the exit code.
func run(ctx context.Context, args []string, e *env) int {
	// Callbacks of the client, server processes and the command itself
	// write concurrently.
	locked := *e
	locked.stdout = &lockedWriter{w: e.stdout}
	locked.stderr = &lockedWriter{w: e.stderr}
	e = &locked
	if len(args) == 0 {
		mainUsage(e.stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		if name == "help" && len(args) > 1 {
			return run(ctx, []string{args[1], "-h"}, e)
		}
		mainUsage(e.stdout)
		return exitOK
	}
	for _, c := range commands {
		if c.name != name {
			continue
		}
		err := c.run(ctx, e, args[1:])
		var ue *usageError
		switch {
		case err == nil:
			return exitOK
		case errors.Is(err, flag.ErrHelp):
			return exitOK
		case errors.As(err, &ue):
			fmt.Fprintf(e.stderr, "sake %s: %s\n", name, safeText(ue.msg))
			fmt.Fprintf(e.stderr, "Run 'sake %s -h' for usage.\n", name)
			return exitUsage
		case errors.Is(err, errSilentFail):
			return exitFail
		default:
			// Errors quote what servers said: shown escaped.
			fmt.Fprintf(e.stderr, "sake %s: %s\n", name, safeText(err.Error()))
			return exitFail
		}
	}
	fmt.Fprintf(e.stderr, "sake: unknown command %q\n", name)
	mainUsage(e.stderr)
	return exitUsage
}

func mainUsage(w io.Writer) {
	fmt.Fprint(w, "Sake is a tool for building and trying MCP servers.\n\nUsage:\n\n\tsake <command> [arguments]\n\nThe commands are:\n\n")
	for _, c := range commands {
		fmt.Fprintf(w, "\t%-12s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, "\nUse \"sake <command> -h\" for more about a command.\n")
}

// usageError is a wrong command line: exit code 2 and a pointer to -h.
type usageError struct{ msg string }

func (u *usageError) Error() string { return u.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// errSilentFail ends a command with exit code 1 after it said why itself.
var errSilentFail = errors.New("failed")

// newFlags returns a flag set for a subcommand whose -h prints usage
// (the synopsis and what follows) and its flags.
func newFlags(e *env, name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet("sake "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprint(w, usage)
		var n int
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprint(w, "\nFlags:\n")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parse parses the flags: -h prints the usage on stdout, a bad flag is
// a usage error.
func parse(fs *flag.FlagSet, e *env, args []string) error {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.SetOutput(e.stdout)
	if errors.Is(err, flag.ErrHelp) {
		fs.Usage()
		return flag.ErrHelp
	}
	fs.SetOutput(e.stderr)
	if err != nil {
		return usagef("%v", err)
	}
	return nil
}
