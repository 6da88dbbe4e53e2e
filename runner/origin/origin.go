// Package origin keeps credentials with the origin they were configured
// for. Every HTTP client of the runner that sends a credential (provider
// API keys and OAuth tokens, the OAuth refresh grant, MCP bearer tokens and
// env_headers) refuses a redirect to another origin: scheme, host and port,
// compared as RFC 6454 compares them. Go's own redirect rule drops only
// Authorization, Cookie and WWW-Authenticate, and only for another host
// name: it keeps them for another port and keeps every other header (an
// x-api-key, an env_headers entry) and, on a 307 or 308, the body.
//
// A redirect within the origin is followed (at most MaxRedirects hops); it
// reaches the server the credential was configured for.
package origin

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// MaxRedirects bounds the redirects one request follows within its origin,
// as net/http's default policy does.
const MaxRedirects = 10

// ErrCrossOrigin is the error of a request whose server redirected it to
// another origin. Its text names neither URL.
var ErrCrossOrigin = errors.New("redirect to another origin refused")

// errTooManyRedirects is the error of a request redirected more than
// MaxRedirects times.
var errTooManyRedirects = errors.New("too many redirects")

// Same reports whether a and b have the same origin: the same scheme and
// host (both compared case-insensitively, a trailing dot ignored; an
// empty host is never the same) and the same port, where a
// missing port is the scheme's default (80 for http, 443 for https).
func Same(a, b *url.URL) bool {
	if a == nil || b == nil {
		return false
	}
	sa, sb := strings.ToLower(a.Scheme), strings.ToLower(b.Scheme)
	return sa == sb && sa != "" && a.Hostname() != "" &&
		strings.EqualFold(strings.TrimSuffix(a.Hostname(), "."), strings.TrimSuffix(b.Hostname(), ".")) &&
		port(sa, a) == port(sb, b)
}

func port(scheme string, u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch scheme {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}

// CheckRedirect is an http.Client CheckRedirect policy: it follows a
// redirect only within the origin of the first request, at most
// MaxRedirects times. Otherwise the client's Do returns an error that
// wraps ErrCrossOrigin (errors.Is works through *url.Error).
func CheckRedirect(req *http.Request, via []*http.Request) error {
	if len(via) == 0 {
		return nil
	}
	if !Same(via[0].URL, req.URL) {
		return ErrCrossOrigin
	}
	if len(via) >= MaxRedirects {
		return errTooManyRedirects
	}
	return nil
}

// Client returns a shallow copy of hc (a new client when hc is nil) whose
// redirect policy is CheckRedirect. The copy shares hc's Transport, Jar
// and Timeout; hc itself is not changed.
func Client(hc *http.Client) *http.Client {
	var c http.Client
	if hc != nil {
		c = *hc
	}
	c.CheckRedirect = CheckRedirect
	return &c
}
