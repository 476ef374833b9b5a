package server

import (
	"encoding/json"
	"net/http"

	"github.com/sakemcp/sake-go/sake/auth"
)

// Metadata is the authorization server metadata document (RFC 8414 §2;
// OpenID Connect Discovery 1.0 §3 adds the OpenID members).
type Metadata struct {
	Issuer                                     string   `json:"issuer"`
	AuthorizationEndpoint                      string   `json:"authorization_endpoint"`
	TokenEndpoint                              string   `json:"token_endpoint"`
	JWKSURI                                    string   `json:"jwks_uri"`
	RegistrationEndpoint                       string   `json:"registration_endpoint,omitempty"`
	ScopesSupported                            []string `json:"scopes_supported"`
	ResponseTypesSupported                     []string `json:"response_types_supported"`
	ResponseModesSupported                     []string `json:"response_modes_supported"`
	GrantTypesSupported                        []string `json:"grant_types_supported"`
	TokenEndpointAuthMethodsSupported          []string `json:"token_endpoint_auth_methods_supported"`
	RevocationEndpoint                         string   `json:"revocation_endpoint"`
	RevocationEndpointAuthMethodsSupported     []string `json:"revocation_endpoint_auth_methods_supported"`
	IntrospectionEndpoint                      string   `json:"introspection_endpoint"`
	IntrospectionEndpointAuthMethodsSupported  []string `json:"introspection_endpoint_auth_methods_supported"`
	CodeChallengeMethodsSupported              []string `json:"code_challenge_methods_supported"`
	ClientIDMetadataDocumentSupported          bool     `json:"client_id_metadata_document_supported"`
	AuthorizationResponseIssParameterSupported bool     `json:"authorization_response_iss_parameter_supported"`
	PushedAuthorizationRequestEndpoint         string   `json:"pushed_authorization_request_endpoint"`
	DeviceAuthorizationEndpoint                string   `json:"device_authorization_endpoint"`
	DPoPSigningAlgValuesSupported              []string `json:"dpop_signing_alg_values_supported"`
	UserinfoEndpoint                           string   `json:"userinfo_endpoint,omitempty"`
	SubjectTypesSupported                      []string `json:"subject_types_supported,omitempty"`
	IDTokenSigningAlgValuesSupported           []string `json:"id_token_signing_alg_values_supported,omitempty"`
	ClaimsParameterSupported                   bool     `json:"claims_parameter_supported"`
	RequestParameterSupported                  bool     `json:"request_parameter_supported"`
	RequestURIParameterSupported               bool     `json:"request_uri_parameter_supported"`
	ClaimsSupported                            []string `json:"claims_supported,omitempty"`
	PromptValuesSupported                      []string `json:"prompt_values_supported,omitempty"`
}

// grantDevice is the device authorization grant type (RFC 8628).
const grantDevice = "urn:ietf:params:oauth:grant-type:device_code"

// Metadata returns the server's metadata document.
func (s *Server) Metadata() *Metadata {
	names := make([]string, len(s.scopes))
	for i, sc := range s.scopes {
		names[i] = sc.Name
	}
	auths := []string{"none", "client_secret_basic", "client_secret_post"}
	m := &Metadata{
		Issuer:                                     s.issuer,
		AuthorizationEndpoint:                      s.endpoint(pathAuthorize),
		TokenEndpoint:                              s.endpoint(pathToken),
		JWKSURI:                                    s.endpoint(pathJWKS),
		ScopesSupported:                            names,
		ResponseTypesSupported:                     []string{"code"},
		ResponseModesSupported:                     []string{"query"},
		GrantTypesSupported:                        []string{"authorization_code", "refresh_token", "client_credentials", grantDevice, GrantTokenExchange},
		TokenEndpointAuthMethodsSupported:          auths,
		RevocationEndpoint:                         s.endpoint(pathRevoke),
		RevocationEndpointAuthMethodsSupported:     auths,
		IntrospectionEndpoint:                      s.endpoint(pathIntrospect),
		IntrospectionEndpointAuthMethodsSupported:  auths[1:],
		CodeChallengeMethodsSupported:              []string{"S256"},
		ClientIDMetadataDocumentSupported:          true,
		AuthorizationResponseIssParameterSupported: true,
		PushedAuthorizationRequestEndpoint:         s.endpoint(pathPAR),
		DeviceAuthorizationEndpoint:                s.endpoint(pathDeviceAuthorization),
		DPoPSigningAlgValuesSupported:              auth.DPoPAlgorithms(),
		UserinfoEndpoint:                           s.endpoint(pathUserinfo),
		SubjectTypesSupported:                      []string{"public"},
		IDTokenSigningAlgValuesSupported:           []string{s.keys.alg},
		RequestURIParameterSupported:               true,
		ClaimsSupported:                            []string{"sub", "iss", "aud", "exp", "iat", "auth_time", "acr", "amr", "nonce", "name", "email", "email_verified", "preferred_username"},
		PromptValuesSupported:                      []string{"none", "login", "consent"},
	}
	if !s.cfg.DisableRegistration {
		m.RegistrationEndpoint = s.endpoint(pathRegister)
	}
	return m
}

// metadataHandler serves the metadata (RFC 8414 or OpenID discovery: the
// same document).
func (s *Server) metadataHandler(_ bool) http.HandlerFunc {
	body, err := json.Marshal(s.Metadata())
	if err != nil {
		panic("authserver: encoding metadata: " + err.Error())
	}
	return func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "public, max-age=3600")
		h.Set("Access-Control-Allow-Origin", "*")
		_, _ = w.Write(body)
	}
}
