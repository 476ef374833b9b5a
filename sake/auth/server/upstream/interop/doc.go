// Package interop tests sake/auth/server/upstream against an OpenID
// provider written elsewhere: the example provider of
// github.com/zitadel/oidc/v3, started in the test, with the person's
// sign-in there and the consent at Sake driven by headless Chromium
// (scripts/chromium.sh). It is a module of its own so that zitadel never
// enters the main module's dependencies.
package interop
