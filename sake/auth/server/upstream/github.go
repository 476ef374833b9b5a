package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"

	"golang.org/x/oauth2"
)

// github reads the person from GitHub's user API: the user, a verified
// email, and with read:org the organisations.
func (l *Login) github(ctx context.Context, tok *oauth2.Token) (*Person, error) {
	var u struct {
		ID    int64  `json:"id"`
		Login string `json:"login"`
		Name  string `json:"name"`
	}
	if err := l.githubGet(ctx, tok, "/user", &u); err != nil {
		return nil, err
	}
	if u.ID == 0 {
		return nil, errors.New("GitHub's user API gave no id")
	}
	p := &Person{Issuer: l.provider.Issuer, ID: strconv.FormatInt(u.ID, 10), Name: u.Name, Username: u.Login,
		Claims: map[string]any{"id": u.ID, "login": u.Login, "name": u.Name}}
	p.Subject = p.Issuer + "#" + p.ID
	var emails []struct {
		Email    string `json:"email"`
		Primary  bool   `json:"primary"`
		Verified bool   `json:"verified"`
	}
	if err := l.githubGet(ctx, tok, "/user/emails", &emails); err == nil {
		for _, e := range emails {
			if e.Verified && (p.Email == "" || e.Primary) {
				p.Email, p.EmailVerified = e.Email, true
			}
		}
	}
	if slices.Contains(l.oauth.Scopes, "read:org") {
		var orgs []struct {
			Login string `json:"login"`
		}
		if err := l.githubGet(ctx, tok, "/user/orgs?per_page=100", &orgs); err != nil {
			return nil, err
		}
		for _, o := range orgs {
			p.Organizations = append(p.Organizations, o.Login)
		}
	}
	return p, nil
}

func (l *Login) githubGet(ctx context.Context, tok *oauth2.Token, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.provider.apiURL+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	resp, err := l.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized {
		return errUnauthorized
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GitHub's API %s answered %d", path, resp.StatusCode)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, maxBody)).Decode(v)
}
