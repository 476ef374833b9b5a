package server

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Defaults of MetadataDocuments.
const (
	DefaultMetadataMaxBytes = 5 << 10
	DefaultMetadataTimeout  = 5 * time.Second
	DefaultMetadataTTL      = time.Hour
	MaxMetadataTTL          = 24 * time.Hour
	DefaultMetadataCache    = 1000
)

// MetadataDocuments configures how Client ID Metadata Documents (an https
// client_id URL whose document describes the client) are fetched. The
// fetch is guarded against server-side request forgery: only https, no
// redirects, and no connection to private, loopback, link-local or
// otherwise non-public addresses (checked on the address actually
// dialled, so DNS tricks do not help).
type MetadataDocuments struct {
	// Disabled refuses every URL client_id.
	Disabled bool
	// Allow, when set, must accept a document URL before it is fetched
	// (a domain trust policy).
	Allow func(u *url.URL) bool
	// AllowPrivateAddresses permits non-public addresses: for tests and
	// closed networks only.
	AllowPrivateAddresses bool
	// TLS configures the TLS client (for example a private root CA).
	TLS *tls.Config
	// MaxBytes bounds a document (default DefaultMetadataMaxBytes);
	// Timeout bounds a fetch (default DefaultMetadataTimeout).
	MaxBytes int64
	Timeout  time.Duration
	// TTL is how long a document is cached without Cache-Control
	// max-age (default DefaultMetadataTTL; at most MaxMetadataTTL).
	TTL time.Duration
	// CacheSize bounds the cached documents (default
	// DefaultMetadataCache).
	CacheSize int
}

type cimdEntry struct {
	client  *Client
	err     error
	expires time.Time
}

type cimdFetcher struct {
	cfg  MetadataDocuments
	http *http.Client
	now  func() time.Time

	mu    sync.Mutex
	cache map[string]cimdEntry
}

func newCIMDFetcher(cfg MetadataDocuments, now func() time.Time) *cimdFetcher {
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMetadataMaxBytes
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultMetadataTimeout
	}
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultMetadataTTL
	}
	if cfg.CacheSize <= 0 {
		cfg.CacheSize = DefaultMetadataCache
	}
	allowPrivate := cfg.AllowPrivateAddresses
	dialer := &net.Dialer{
		Timeout: cfg.Timeout,
		Control: func(_, address string, _ syscall.RawConn) error {
			if allowPrivate {
				return nil
			}
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("address %q cannot be checked", address)
			}
			if !publicAddr(ap.Addr()) {
				return fmt.Errorf("address %s is not public", ap.Addr())
			}
			return nil
		},
	}
	tr := &http.Transport{
		DialContext:           dialer.DialContext,
		TLSClientConfig:       cfg.TLS,
		TLSHandshakeTimeout:   cfg.Timeout,
		ResponseHeaderTimeout: cfg.Timeout,
		MaxIdleConns:          10,
		IdleConnTimeout:       time.Minute,
		DisableCompression:    true,
		Proxy:                 nil,
	}
	return &cimdFetcher{
		cfg: cfg,
		http: &http.Client{
			Transport: tr,
			Timeout:   cfg.Timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return errors.New("redirects are not followed")
			},
		},
		now:   now,
		cache: map[string]cimdEntry{},
	}
}

// publicAddr reports whether a is a globally routable unicast address.
func publicAddr(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsGlobalUnicast() || a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

var nonPublic = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{"0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "192.0.2.0/24", "198.18.0.0/15",
		"198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64",
		"2001:db8::/32", "2002::/16", "fec0::/10"} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// checkDocumentURL applies the client ID URL rules: https, a host, a
// path, no fragment, credentials or dot segments.
func checkDocumentURL(id string) (*url.URL, error) {
	u, err := url.Parse(id)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.Fragment != "" ||
		strings.Contains(id, "#") || u.Path == "" || u.Path == "/" {
		return nil, errors.New("a client_id URL must be https with a host and a path, and no fragment or credentials")
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == "." || seg == ".." {
			return nil, errors.New("a client_id URL must not have dot segments")
		}
	}
	return u, nil
}

func (f *cimdFetcher) client(ctx context.Context, id string) (*Client, error) {
	if f.cfg.Disabled {
		return nil, errors.New("client metadata documents are not accepted here")
	}
	u, err := checkDocumentURL(id)
	if err != nil {
		return nil, err
	}
	if f.cfg.Allow != nil && !f.cfg.Allow(u) {
		return nil, errors.New("this client's domain is not trusted")
	}
	now := f.now()
	f.mu.Lock()
	e, ok := f.cache[id]
	f.mu.Unlock()
	if ok && now.Before(e.expires) {
		if e.err != nil {
			return nil, e.err
		}
		return cloneClient(e.client), nil
	}
	c, ttl, err := f.fetch(ctx, id)
	e = cimdEntry{client: c, err: err, expires: now.Add(ttl)}
	if err != nil {
		e.expires = now.Add(time.Minute) // failures are cached briefly
	}
	f.mu.Lock()
	if len(f.cache) >= f.cfg.CacheSize {
		for k, old := range f.cache {
			if !now.Before(old.expires) || len(f.cache) >= f.cfg.CacheSize {
				delete(f.cache, k)
			}
			if len(f.cache) < f.cfg.CacheSize*3/4 {
				break
			}
		}
	}
	f.cache[id] = e
	f.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return cloneClient(c), nil
}

// document is the part of a client metadata document the server uses.
type document struct {
	ClientID        string   `json:"client_id"`
	ClientName      string   `json:"client_name"`
	ClientURI       string   `json:"client_uri"`
	RedirectURIs    []string `json:"redirect_uris"`
	GrantTypes      []string `json:"grant_types"`
	ResponseTypes   []string `json:"response_types"`
	AuthMethod      string   `json:"token_endpoint_auth_method"`
	Scope           string   `json:"scope"`
	ApplicationType string   `json:"application_type"`
	DPoPBound       bool     `json:"dpop_bound_access_tokens"`
}

func (f *cimdFetcher) fetch(ctx context.Context, id string) (*Client, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := f.http.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("fetching it failed: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("fetching it answered status %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.cfg.MaxBytes+1))
	if err != nil {
		return nil, 0, fmt.Errorf("reading it failed: %w", err)
	}
	if int64(len(body)) > f.cfg.MaxBytes {
		return nil, 0, fmt.Errorf("it is larger than %d bytes", f.cfg.MaxBytes)
	}
	var d document
	if err := json.Unmarshal(body, &d); err != nil {
		return nil, 0, errors.New("it is not a JSON object")
	}
	switch {
	case d.ClientID != id:
		return nil, 0, errors.New("its client_id differs from its URL")
	case d.ClientName == "":
		return nil, 0, errors.New("it has no client_name")
	case len(d.RedirectURIs) == 0:
		return nil, 0, errors.New("it has no redirect_uris")
	case d.AuthMethod != "" && d.AuthMethod != AuthNone:
		return nil, 0, fmt.Errorf("token_endpoint_auth_method %q is not supported for metadata documents: use none", d.AuthMethod)
	}
	appType := d.ApplicationType
	if appType == "" {
		appType = "native"
	}
	for _, r := range d.RedirectURIs {
		if err := checkRedirectURI(r, appType); err != nil {
			return nil, 0, err
		}
	}
	for _, g := range d.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return nil, 0, fmt.Errorf("grant type %q is not available to metadata document clients", g)
		}
	}
	c := &Client{ID: id, Name: d.ClientName, URI: d.ClientURI, RedirectURIs: d.RedirectURIs, GrantTypes: d.GrantTypes,
		AuthMethod: AuthNone, ApplicationType: appType, DPoPBound: d.DPoPBound, FromDocument: true}
	return c, f.ttl(resp.Header.Get("Cache-Control")), nil
}

func (f *cimdFetcher) ttl(cc string) time.Duration {
	for _, d := range strings.Split(cc, ",") {
		d = strings.TrimSpace(strings.ToLower(d))
		if d == "no-store" || d == "no-cache" {
			return time.Minute
		}
		if v, ok := strings.CutPrefix(d, "max-age="); ok {
			if n, err := strconv.Atoi(v); err == nil && n >= 0 {
				t := time.Duration(n) * time.Second
				return min(max(t, time.Minute), MaxMetadataTTL)
			}
		}
	}
	return min(f.cfg.TTL, MaxMetadataTTL)
}
