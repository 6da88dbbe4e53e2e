package provider

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
)

// Reason is why a provider call failed, from a fixed set a person can act
// on. It is decided from the HTTP status, the API's error type or code
// (compared, never shown) and the Go error's type, never from a response
// body, and it is what a person reads (Summary) beside the run's protocol
// code, which stays a spec code.
type Reason uint8

// The reasons. ReasonUnknown is the zero value: no reason could be told.
const (
	ReasonUnknown        Reason = iota
	ReasonRateLimited           // HTTP 429, rate_limit_error, rate_limit_exceeded
	ReasonQuota                 // insufficient_quota, billing_error: the account's credit or quota
	ReasonUnauthorized          // HTTP 401/403, authentication/permission errors, an unusable credential
	ReasonModelNotFound         // HTTP 404, model_not_found, not_found_error
	ReasonContextTooLong        // HTTP 413, context_length_exceeded, "prompt is too long"
	ReasonBadRequest            // another HTTP 4xx: the provider refused this request
	ReasonOverloaded            // HTTP 5xx, 529, overloaded_error, api_error: the provider's side
	ReasonNetwork               // no HTTP answer: DNS, connection refused or reset, TLS, timeout
	ReasonBadResponse           // the answer did not parse or ended mid-stream
	reasonCount
)

var reasonNames = [reasonCount]string{"unknown", "rate_limited", "quota_exceeded", "unauthorized", "model_not_found",
	"context_too_long", "bad_request", "provider_error", "network", "bad_response"}

// String is the reason's name, as in the diagnostic log and a fixture
// script's {"error": NAME} step.
func (r Reason) String() string {
	if r >= reasonCount {
		r = ReasonUnknown
	}
	return reasonNames[r]
}

// ReasonNamed returns the reason called name (String), and false for a name
// that is none.
func ReasonNamed(name string) (Reason, bool) {
	for i, n := range reasonNames {
		if n == name && Reason(i) != ReasonUnknown {
			return Reason(i), true
		}
	}
	return ReasonUnknown, false
}

// Summary is the sentence a person reads for the reason: what happened and
// what to do. Fixed text: nothing from the provider's answer.
func (r Reason) Summary() string {
	switch r {
	case ReasonRateLimited:
		return "the provider is rate limiting requests; wait a little and send the prompt again"
	case ReasonQuota:
		return "the provider account is out of credit or quota; check its plan and billing"
	case ReasonUnauthorized:
		return "the provider did not accept the credential; store a new API key with /login (or `magi-code login`)"
	case ReasonModelNotFound:
		return "the provider does not know the model, or this account cannot use it; choose another with /model"
	case ReasonContextTooLong:
		return "the conversation is too long for the model's context window; start a new session with /new, or set context_window so older turns are compacted"
	case ReasonBadRequest:
		return "the provider refused the request as invalid"
	case ReasonOverloaded:
		return "the provider had an error on its side or is overloaded; try again in a moment"
	case ReasonNetwork:
		return "the provider could not be reached (network, DNS, TLS or timeout); check the connection and the provider's base_url"
	case ReasonBadResponse:
		return "the provider's answer was cut off or could not be read; try again"
	}
	return "the provider call failed for a reason that could not be told; `magi-code logs` has the details"
}

// Classify tells the reason of a failed call from what is safe to compare:
// the HTTP status (0 when there was no HTTP answer), the API's error type
// and code and its message (each only compared here, never kept or shown),
// and the Go error (its type: network errors). The error strings of
// decoders are never read.
func Classify(status int, apiType, apiCode, message string, err error) Reason {
	kind := strings.ToLower(apiType + " " + apiCode)
	msg := strings.ToLower(message)
	switch {
	case strings.Contains(kind, "context_length") || strings.Contains(kind, "request_too_large") ||
		strings.Contains(msg, "prompt is too long") || strings.Contains(msg, "context length") ||
		strings.Contains(msg, "context window") || strings.Contains(msg, "maximum context") ||
		status == http.StatusRequestEntityTooLarge:
		return ReasonContextTooLong
	case strings.Contains(kind, "insufficient_quota") || strings.Contains(kind, "billing"):
		return ReasonQuota
	case strings.Contains(kind, "rate_limit") || status == http.StatusTooManyRequests:
		return ReasonRateLimited
	case strings.Contains(kind, "authentication") || strings.Contains(kind, "permission") ||
		strings.Contains(kind, "invalid_api_key") || status == http.StatusUnauthorized || status == http.StatusForbidden:
		return ReasonUnauthorized
	case strings.Contains(kind, "model_not_found") || strings.Contains(kind, "not_found") || status == http.StatusNotFound:
		return ReasonModelNotFound
	case strings.Contains(kind, "overloaded") || status >= 500:
		return ReasonOverloaded
	case status == http.StatusRequestTimeout:
		return ReasonNetwork
	case status >= 400:
		return ReasonBadRequest
	case status == 0 && err != nil && networkError(err):
		return ReasonNetwork
	case status == 0 && err != nil && decodeError(err):
		return ReasonBadResponse
	}
	return ReasonUnknown
}

// networkError reports whether err (no HTTP answer) is the network's: a
// DNS failure, a refused or reset connection, a TLS or certificate
// failure, an I/O timeout or a connection closed mid-answer. The run's own
// cancellation is not.
func networkError(err error) bool {
	if errors.Is(err, context.Canceled) {
		return false
	}
	var (
		netErr  net.Error
		dnsErr  *net.DNSError
		opErr   *net.OpError
		certErr *tls.CertificateVerificationError
		unknown x509.UnknownAuthorityError
		recErr  tls.RecordHeaderError
	)
	return errors.As(err, &netErr) || errors.As(err, &dnsErr) || errors.As(err, &opErr) ||
		errors.As(err, &certErr) || errors.As(err, &unknown) || errors.As(err, &recErr) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// decodeError reports whether err is a JSON decoder's (an answer that did
// not parse); only its type is looked at.
func decodeError(err error) bool {
	var (
		syntax *json.SyntaxError
		typ    *json.UnmarshalTypeError
	)
	return errors.As(err, &syntax) || errors.As(err, &typ)
}

// ReasonOf is the reason carried by err: a provider *Error's, else the
// network's when err is a network failure, else ReasonUnknown.
func ReasonOf(err error) Reason {
	var pe *Error
	if errors.As(err, &pe) && pe.Reason != ReasonUnknown {
		return pe.Reason
	}
	if err != nil && networkError(err) {
		return ReasonNetwork
	}
	return ReasonUnknown
}
