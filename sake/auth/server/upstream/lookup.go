package upstream

import (
	"context"
	"errors"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/sakemcp/sake-go/sake/auth/server"
)

// lookupCache remembers Lookup's answers for a while, bounded.
type lookupCache struct {
	mu      sync.Mutex
	max     int
	entries map[string]lookupEntry
}

type lookupEntry struct {
	subject *server.Subject
	until   time.Time
}

func newLookupCache(max int) *lookupCache {
	return &lookupCache{max: max, entries: map[string]lookupEntry{}}
}

func (c *lookupCache) get(subject string, now time.Time) (*server.Subject, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[subject]
	if !ok || !now.Before(e.until) {
		return nil, false
	}
	return e.subject, true
}

func (c *lookupCache) put(subject string, s *server.Subject, until time.Time, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[subject]; !ok && len(c.entries) >= c.max {
		for k, e := range c.entries {
			if !now.Before(e.until) {
				delete(c.entries, k)
			}
		}
		for k := range c.entries {
			if len(c.entries) < c.max {
				break
			}
			delete(c.entries, k)
		}
	}
	c.entries[subject] = lookupEntry{subject: s, until: until}
}

func (c *lookupCache) forget(subject string) {
	c.mu.Lock()
	delete(c.entries, subject)
	c.mu.Unlock()
}

// Lookup implements server.Login: the person's latest upstream token
// still works at the provider (userinfo, or its refresh token, or
// GitHub's user API) and the person still passes Config.Allow. The
// answer is reused for Config.LookupTTL. A subject of another provider,
// or one whose tokens are gone (signed out everywhere, forgotten), is
// not active; a provider that cannot be reached is an error, and so no
// tokens are issued meanwhile.
func (l *Login) Lookup(ctx context.Context, subject string) (*server.Subject, error) {
	now := l.now()
	if s, ok := l.cache.get(subject, now); ok {
		return s, nil
	}
	inactive := &server.Subject{Active: false}
	stored, err := l.tokens.LatestUpstreamToken(ctx, subject)
	if errors.Is(err, server.ErrNotFound) {
		return inactive, nil
	}
	if err != nil {
		return nil, err
	}
	rec, _, err := l.openRecord(ctx, stored.Key)
	if errors.Is(err, server.ErrNotFound) || errors.Is(err, ErrNoToken) {
		return inactive, nil
	}
	if err != nil {
		return nil, err
	}
	if rec.Person.Subject != subject {
		return inactive, nil
	}
	answer, err := l.check(ctx, stored.Key, rec)
	if err != nil {
		return nil, err
	}
	l.cache.put(subject, answer, now.Add(l.cfg.LookupTTL), now)
	return answer, nil
}

// check asks the provider about the person of rec (stored under key).
func (l *Login) check(ctx context.Context, key string, rec *record) (*server.Subject, error) {
	mu := &l.locks[lockIndex(key)]
	mu.Lock()
	defer mu.Unlock()
	p := *rec.Person
	tok, _, err := l.current(ctx, rec.Token)
	if err == nil {
		err = l.stillThere(l.httpContext(ctx), oauth2.StaticTokenSource(tok), &p)
	}
	if revokedUpstream(err) {
		return &server.Subject{Active: false}, nil
	}
	if err != nil {
		l.log.Warn("upstream: asking the provider about a person", "provider", l.provider.Name, "err", oauthErrorCode(err))
		return nil, errors.New("upstream: the provider cannot be asked now")
	}
	if err := l.saveRefreshed(ctx, key, rec, tok, &p); err != nil {
		l.log.Warn("upstream: storing a refreshed token", "err", err)
	}
	if allowed(ctx, l.cfg.Allow, &p) != nil {
		return &server.Subject{Active: false}, nil
	}
	return &server.Subject{Active: true, Claims: p.claims()}, nil
}
