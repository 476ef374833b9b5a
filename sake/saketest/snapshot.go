package saketest

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/internal/surface"
	"github.com/sakemcp/sake-go/sake/client"
)

// UpdateEnv is the environment variable that makes Snapshot write its
// golden files instead of comparing them: SAKETEST_UPDATE=1 go test ./...
const UpdateEnv = "SAKETEST_UPDATE"

// Snapshot compares the surface of a server (impl, a value for sake.New or
// a *sake.Server, connected with opts as Connect does) with the golden
// file file, relative to the test's directory: the protocol revision, the
// capability and extension names, and every tool (name, title,
// description, input and output schemas, annotations), resource (without
// its size), resource template and prompt, sorted, each object's keys
// sorted; the same file `sake snapshot` writes for a running server. When
// they differ the test fails with what changed, so that a schema changing
// by accident is caught.
//
// With SAKETEST_UPDATE=1 in the environment (UpdateEnv), or with a bool
// -update flag that the test binary defines and is given, Snapshot writes
// the file instead, creating its directory, and the test passes. The
// surface is taken in the era opts choose (modern without Legacy): a test
// of both eras keeps one file per era.
func Snapshot(t testing.TB, impl any, file string, opts ...Option) {
	t.Helper()
	c := Connect(t, impl, opts...)
	s, err := call(c, func(cl *client.Client, ctx context.Context) (*surface.Surface, error) {
		return surface.Fetch(ctx, cl)
	})
	c.Close()
	if err != nil {
		t.Fatalf("saketest: Snapshot: %v", err)
		return
	}
	got, err := surface.Encode(s)
	if err != nil {
		t.Fatalf("saketest: Snapshot: %v", err)
		return
	}
	old, err := os.ReadFile(file)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		t.Fatalf("saketest: Snapshot: %v", err)
		return
	}
	if updating() {
		if !missing && bytes.Equal(old, got) {
			return
		}
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatalf("saketest: Snapshot: %v", err)
			return
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatalf("saketest: Snapshot: %v", err)
			return
		}
		t.Logf("saketest: wrote %s: %s", file, s.Counts())
		return
	}
	if missing {
		t.Fatalf("saketest: %s does not exist: write it by running the test with %s=1", file, UpdateEnv)
		return
	}
	want, err := surface.Decode(old)
	if err != nil {
		t.Fatalf("saketest: %s is not a surface snapshot (%v): write it again by running the test with %s=1", file, err, UpdateEnv)
		return
	}
	if canon, err := surface.Canonical(old); err == nil && bytes.Equal(canon, got) {
		return
	}
	have, err := surface.Decode(got)
	if err != nil {
		t.Fatalf("saketest: Snapshot: %v", err)
		return
	}
	var diff strings.Builder
	surface.Diff(&diff, want, have)
	if diff.Len() == 0 {
		// Only the file's layout differs (hand-edited spacing).
		diff.WriteString("  (the same surface, written differently)\n")
	}
	t.Errorf("saketest: the server's surface differs from %s:\n%sIf the change is meant, accept it by running the test with %s=1.",
		file, diff.String(), UpdateEnv)
}

// updating reports whether Snapshot writes its files.
func updating() bool {
	if v := os.Getenv(UpdateEnv); v != "" {
		on, err := strconv.ParseBool(v)
		return err != nil || on
	}
	f := flag.Lookup("update")
	if f == nil {
		return false
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	on, _ := g.Get().(bool)
	return on
}
