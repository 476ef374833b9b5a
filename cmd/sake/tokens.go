package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sakemcp/sake-go/sake/client"
)

// maxTokenFileBytes bounds a token file the command reads back.
const maxTokenFileBytes = 64 << 10

// tokenDir is where the sign-ins are kept: one file per server URL, under
// the user's configuration directory (0700, its files 0600).
func tokenDir(e *env) (string, error) {
	if e.userConfigDir == nil {
		return "", errors.New("the user's configuration directory is unknown")
	}
	base, err := e.userConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "sake", "tokens"), nil
}

// tokenKey is the canonical form of a server URL: lower-case scheme and
// host, no query or fragment, no trailing slash.
func tokenKey(raw string) string {
	s := strings.TrimSpace(raw)
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	if scheme, rest, ok := strings.Cut(s, "://"); ok {
		host, path, _ := strings.Cut(rest, "/")
		s = strings.ToLower(scheme) + "://" + strings.ToLower(host)
		if path = strings.TrimSuffix(path, "/"); path != "" {
			s += "/" + path
		}
	}
	return s
}

// tokenFile is the token store of one server URL in dir: whatever
// resource the authorization names, the token is kept under the URL the
// command was given, so the next run (and sake logout) find it.
type tokenFile struct {
	dir, url string
}

// storedToken is the file's content.
type storedToken struct {
	URL   string       `json:"url"`
	Token client.Token `json:"token"`
}

func (f *tokenFile) path() string {
	sum := sha256.Sum256([]byte(tokenKey(f.url)))
	return filepath.Join(f.dir, hex.EncodeToString(sum[:16])+".json")
}

// Load implements client.TokenStore.
func (f *tokenFile) Load(context.Context, string) (*client.Token, error) {
	file, err := os.Open(f.path())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer file.Close()
	var st storedToken
	dec := json.NewDecoder(&limitedReader{r: file, n: maxTokenFileBytes})
	if err := dec.Decode(&st); err != nil || st.URL != tokenKey(f.url) || st.Token.AccessToken == "" {
		// An unreadable or foreign file is no sign-in: sign in again.
		return nil, nil
	}
	return &st.Token, nil
}

// Save implements client.TokenStore: the file is written whole (to a
// temporary file renamed over it), readable by its owner only.
func (f *tokenFile) Save(_ context.Context, _ string, t *client.Token) error {
	if err := os.MkdirAll(f.dir, 0o700); err != nil {
		return err
	}
	if err := os.Chmod(f.dir, 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(storedToken{URL: tokenKey(f.url), Token: *t}, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(f.dir, ".token-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), f.path())
}

// Delete implements client.TokenStore.
func (f *tokenFile) Delete(context.Context, string) error {
	err := os.Remove(f.path())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// limitedReader fails past n bytes (io.LimitReader would cut silently).
type limitedReader struct {
	r io.Reader
	n int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, fmt.Errorf("the token file exceeds %d bytes", maxTokenFileBytes)
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}
