package main

import (
	"context"
	"fmt"
	"os"
)

const logoutUsage = `usage: sake logout URL

Logout forgets the sign-in kept for the server at URL (the URL given to
sake call or sake inspect): the next command signs in again. The token is
removed from this computer; the authorization server is not told.
`

func runLogout(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "logout", logoutUsage)
	if err := parse(fs, e, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || !isURL(fs.Arg(0)) {
		return usagef("name the server's http(s):// URL: sake logout URL")
	}
	dir, err := tokenDir(e)
	if err != nil {
		return fmt.Errorf("cannot find the sign-ins: %w", err)
	}
	f := &tokenFile{dir: dir, url: fs.Arg(0)}
	if _, err := os.Stat(f.path()); os.IsNotExist(err) {
		fmt.Fprintf(e.stdout, "no sign-in is kept for %s\n", tokenKey(fs.Arg(0)))
		return nil
	}
	if err := f.Delete(ctx, ""); err != nil {
		return fmt.Errorf("cannot remove the sign-in: %w", err)
	}
	fmt.Fprintf(e.stdout, "signed out of %s\n", tokenKey(fs.Arg(0)))
	return nil
}
