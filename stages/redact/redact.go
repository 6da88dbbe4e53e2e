package redact

import "regexp"

// Marker replaces every redacted secret.
const Marker = "[REDACTED]"

// patterns is the initial corpus; see redact_test.go for shapes that must be
// caught and look-alikes that must survive.
var patterns = []*regexp.Regexp{
	regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}`),
	regexp.MustCompile(`(?i)\bbearer\s+[A-Za-z0-9._~+/-]{16,}=*`),
}

// String returns s with every secret replaced by Marker.
func String(s string) string {
	for _, p := range patterns {
		s = p.ReplaceAllLiteralString(s, Marker)
	}
	return s
}

// Contains reports whether s holds anything String would redact.
func Contains(s string) bool {
	for _, p := range patterns {
		if p.MatchString(s) {
			return true
		}
	}
	return false
}
