// Package auth supplies provider credentials at turn time.
//
// A Source returns the credential to send with one provider request: an API
// key as is, or an OAuth access token that is refreshed first when it has
// expired or expires within a skew (DefaultSkew). Refresh happens only when
// a turn asks for a token, never at startup (KEYS.md: "refreshed at turn
// time, never during startup"), by POSTing the refresh token to the
// configured token endpoint (RFC 6749 section 6). The new tokens are written
// back to $MC_HOME/auth.json atomically (a 0600 temporary file renamed over
// it) under an exclusive lock (flock; LockFileEx on Windows) on
// $MC_HOME/auth.json.lock, so two children
// sharing MC_HOME never refresh at once and the second one adopts the tokens
// the first wrote.
//
// Tokens are never logged and never appear in an error's text: a failed
// refresh is a *provider.Error with code provider_unavailable whose Error()
// is only the code. Injected Logf lines name HTTP statuses and file
// operations, never bodies or token values.
package auth
