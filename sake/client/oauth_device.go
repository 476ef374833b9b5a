package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// deviceCodeGrant is the grant type of RFC 8628 §3.4.
const deviceCodeGrant = "urn:ietf:params:oauth:grant-type:device_code"

// DeviceCode is what a person needs to answer a device authorization
// (RFC 8628 §3.2): the page to open and the code to type there.
type DeviceCode struct {
	// VerificationURI is the page where the person types UserCode.
	VerificationURI string
	// VerificationURIComplete, when the server gives one, is the page
	// with the code already filled in.
	VerificationURIComplete string
	// UserCode is the code the person types.
	UserCode string
	// Expires is when the code stops working.
	Expires time.Time
}

// Default and ceiling of the device flow's polling interval (RFC 8628
// §3.2, §3.5).
const (
	defaultDeviceInterval = 5 * time.Second
	maxDeviceInterval     = time.Minute
)

// deviceFlow signs the person in with the device authorization grant:
// it asks for a code, shows it with cfg.Device, and polls the token
// endpoint until the person answers, the code expires or ctx ends.
func (a *OAuthAuthorizer) deviceFlow(ctx context.Context, d *discovery, scopes []string) (*Token, error) {
	as := d.as
	cl, err := a.client(ctx, as)
	if err != nil {
		return nil, err
	}
	form := url.Values{"resource": {d.resource}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	req, err := a.tokenHTTPRequest(ctx, &asMeta{issuer: as.issuer, tokenEndpoint: as.deviceEndpoint}, cl, form)
	if err != nil {
		return nil, err
	}
	resp, err := noRedirects(a.cfg.HTTPClient).Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: device authorization request: %w", ErrAuthorization, err)
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes))
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: the device authorization endpoint answered %d%s: %.300s", ErrAuthorization, resp.StatusCode, redirectNote(resp), b)
	}
	var dr struct {
		DeviceCode              string `json:"device_code"`
		UserCode                string `json:"user_code"`
		VerificationURI         string `json:"verification_uri"`
		VerificationURIComplete string `json:"verification_uri_complete"`
		ExpiresIn               int64  `json:"expires_in"`
		Interval                int64  `json:"interval"`
	}
	if err := json.Unmarshal(b, &dr); err != nil || dr.DeviceCode == "" || dr.UserCode == "" || dr.VerificationURI == "" {
		return nil, fmt.Errorf("%w: the device authorization answer lacks device_code, user_code or verification_uri: %.300s", ErrAuthorization, b)
	}
	interval := defaultDeviceInterval
	if dr.Interval > 0 {
		interval = min(time.Duration(dr.Interval)*time.Second, maxDeviceInterval)
	}
	expires := a.cfg.Now().Add(10 * time.Minute)
	if dr.ExpiresIn > 0 {
		expires = a.cfg.Now().Add(time.Duration(dr.ExpiresIn) * time.Second)
	}
	if err := a.cfg.Device(ctx, DeviceCode{VerificationURI: dr.VerificationURI,
		VerificationURIComplete: dr.VerificationURIComplete, UserCode: dr.UserCode, Expires: expires}); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAuthorization, err)
	}
	poll := url.Values{"grant_type": {deviceCodeGrant}, "device_code": {dr.DeviceCode}, "resource": {d.resource}}
	wait := time.NewTimer(interval)
	defer wait.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: waiting for the device sign-in: %w", ErrAuthorization, ctx.Err())
		case <-wait.C:
		}
		t, code, err := a.pollDevice(ctx, as, cl, poll, d.resource, scopes)
		switch code {
		case "":
			return t, err
		case "authorization_pending":
		case "slow_down":
			interval = min(interval+5*time.Second, maxDeviceInterval)
		default:
			return nil, err
		}
		wait.Reset(interval)
	}
}

// pollDevice makes one token request of the device flow; code is the
// OAuth error the server answered ("" for a token or a failure that is
// not one).
func (a *OAuthAuthorizer) pollDevice(ctx context.Context, as *asMeta, cl *registration, form url.Values, resource string, scopes []string) (*Token, string, error) {
	t, err := a.tokenRequest(ctx, as, cl, form, resource, scopes)
	if err == nil {
		return t, "", nil
	}
	var te *tokenError
	if errors.As(err, &te) {
		switch te.code {
		case "authorization_pending", "slow_down":
			return nil, te.code, err
		case "access_denied":
			return nil, te.code, fmt.Errorf("%w: the sign-in was refused on the device page", ErrAuthorization)
		case "expired_token":
			return nil, te.code, fmt.Errorf("%w: the device code expired before the sign-in: run the command again", ErrAuthorization)
		}
		return nil, te.code, err
	}
	return nil, "", err
}

// tokenError is a token endpoint's refusal, with its OAuth error code.
type tokenError struct {
	code string
	msg  string
}

func (e *tokenError) Error() string { return e.msg }
func (e *tokenError) Unwrap() error { return ErrAuthorization }
