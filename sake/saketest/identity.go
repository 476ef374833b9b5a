package saketest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/sakemcp/sake-go/sake"
)

// identity builds the simulated caller of one request.
func (c *Client) identity() *sake.Identity {
	o := &c.opts
	var principal any
	if o.principal != nil {
		principal = o.principal()
	}
	if !o.withToken {
		if principal == nil {
			return nil
		}
		return &sake.Identity{Principal: principal}
	}
	id := &sake.Identity{Principal: principal, Scopes: o.scopes, ClientID: o.clientID, ACR: o.acr,
		AuthTime: o.authTime, FromToken: true}
	if id.ClientID == "" {
		id.ClientID = "sake-test"
	}
	switch {
	case o.subject != nil:
		id.Subject = *o.subject
	case principal != nil:
		sum := sha256.Sum256([]byte(fmt.Sprintf("%T:%#v", principal, principal)))
		id.Subject = "saketest-" + hex.EncodeToString(sum[:8])
	default:
		id.Subject = "saketest-user"
	}
	claims := make(map[string]any, len(o.claims)+5)
	for k, v := range o.claims {
		claims[k] = v
	}
	claims["sub"], claims["client_id"], claims["scope"] = id.Subject, id.ClientID, strings.Join(id.Scopes, " ")
	if id.ACR != "" {
		claims["acr"] = id.ACR
	}
	if !id.AuthTime.IsZero() {
		claims["auth_time"] = id.AuthTime.Unix()
	}
	id.Claims = claims
	return id
}
