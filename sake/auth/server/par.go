package server

import (
	"net/http"
)

// par is the pushed authorization request endpoint (RFC 9126): the
// client posts the authorization parameters, authenticated, and gets a
// single-use request_uri to send the browser with.
func (s *Server) par(w http.ResponseWriter, r *http.Request) {
	if e := readForm(w, r); e != nil {
		writeError(w, r, e)
		return
	}
	client, e := s.authenticateClient(r)
	if e != nil {
		writeError(w, r, e)
		return
	}
	f := r.PostForm
	if f.Has("request_uri") {
		writeError(w, r, oerr(ErrInvalidRequest, "request_uri cannot be pushed"))
		return
	}
	redirect, ok := matchRedirect(client, f.Get("redirect_uri"))
	if !ok {
		writeError(w, r, oerr(ErrInvalidRequest, "redirect_uri is missing or not registered for this client"))
		return
	}
	g := Grant{ClientID: client.ID, RedirectURI: redirect, RedirectGiven: f.Get("redirect_uri") != "", State: f.Get("state")}
	if e := s.parseAuthorization(f, client, &g); e != nil {
		writeError(w, r, e)
		return
	}
	handle := randomToken(32)
	ttl := min(s.cfg.RequestTTL, 600e9)
	cred := &Credential{Hash: hashHandle(handle), Kind: KindRequest, Expires: s.now().Add(ttl), Grant: g}
	if err := s.store.PutCredential(r.Context(), cred); err != nil {
		writeError(w, r, s.storeError(err))
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"request_uri": requestURIPrefix + handle, "expires_in": int64(ttl.Seconds())})
}
