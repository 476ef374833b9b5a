package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/sakemcp/sake-go/internal/surface"
)

const snapshotUsage = `usage: sake snapshot [flags] CMD [ARGS...] | URL  FILE

Snapshot compares the server's surface with the golden file FILE: its
tools (names, titles, descriptions, input and output schemas, annotations),
resources, resource templates, prompts (with their arguments), capabilities
and extensions, each list sorted, every object's keys sorted, so that the
file is the same for the same server. Each entry's _meta holds the version
listed and the versions served, so a version bump shows as one. When they
differ it prints what changed and exits with 1, so that CI catches a schema
changing by accident.
-update writes FILE instead (accepting the change).

` + targetUsage + `
Examples:

	sake snapshot -update bin/notes testdata/surface.json
	sake snapshot bin/notes testdata/surface.json
`

func runSnapshot(ctx context.Context, e *env, args []string) error {
	flags := newFlags(e, "snapshot", snapshotUsage)
	var cf connFlags
	cf.register(flags, 30*time.Second)
	update := flags.Bool("update", false, "write FILE with the server's surface instead of comparing")
	if err := parse(flags, e, args); err != nil {
		return err
	}
	pos := flags.Args()
	if len(pos) < 2 {
		return usagef("name the server and the golden file: sake snapshot [-update] CMD [ARGS...] | URL FILE")
	}
	file, target := pos[len(pos)-1], pos[:len(pos)-1]
	old, err := os.ReadFile(file)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return fmt.Errorf("cannot read %s: %w", file, err)
	}
	var want *surface.Golden
	if !*update {
		if missing {
			return fmt.Errorf("%s does not exist: write it with sake snapshot -update", file)
		}
		if want, err = surface.Decode(old); err != nil {
			return fmt.Errorf("%s is not a surface snapshot (%v): write it again with sake snapshot -update", file, err)
		}
		// Compare in the revision the snapshot was taken in: the eras
		// declare some things differently (tasks: a capability before
		// 2026-07-28, an extension since).
		if _, err := eraOption(want.ProtocolVersion); cf.era == "" && err == nil {
			cf.era = want.ProtocolVersion
		}
	}
	ctx, cancel := cf.withTimeout(ctx)
	defer cancel()
	c, err := cf.connect(ctx, e, target)
	if err != nil {
		return err
	}
	s, err := surface.Fetch(ctx, c)
	c.Close()
	if err != nil {
		return err
	}
	got, err := surface.Encode(s)
	if err != nil {
		return err
	}
	if *update {
		if !missing && bytes.Equal(old, got) {
			fmt.Fprintf(e.stdout, "%s is up to date\n", file)
			return nil
		}
		if dir := filepath.Dir(file); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote %s: %s\n", file, s.Counts())
		return nil
	}
	oldCanon, err := surface.Canonical(old)
	if err != nil {
		return err
	}
	if bytes.Equal(oldCanon, got) {
		fmt.Fprintf(e.stdout, "%s matches the server (%s)\n", file, s.Counts())
		return nil
	}
	gotSurface, err := surface.Decode(got)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "the server's surface differs from %s:\n", file)
	surface.Diff(safe(e.stdout), want, gotSurface)
	fmt.Fprintf(e.stderr, "sake snapshot: the server's surface differs from %s; if the change is meant, accept it with sake snapshot -update\n", file)
	return errSilentFail
}
