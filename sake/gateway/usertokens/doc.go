// Package usertokens keeps the OAuth tokens a gateway holds for each of
// its users at each server it fronts, sealed with AES-GCM.
//
// A Vault seals every token with a key of the operator's (32 bytes,
// usually from the environment: KeyFromEnv) before handing it to a
// Backend, so the backend, its backups and its replicas only ever hold
// ciphertext. A sealed token is bound to its user and resource: a row
// copied to another user, or to another resource, no longer opens. Memory
// is a backend for one process; pgusertokens keeps tokens in PostgreSQL
// for replicas.
//
// Vault.For gives the client.TokenStore of one user, for the OAuth flow of
// sake/client (client.OAuthConfig.Store): the flow then signs that user in,
// refreshes their token and keeps it, and never sees another user's.
// Vault.SignOut forgets every token of a user.
//
// Keys rotate: New takes the key that seals first, then older keys that
// still open what they sealed; a token opened with an older key is sealed
// again with the first on its next save.
package usertokens
