package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// MaxToolNameBytes bounds a namespaced tool name. OpenAI and Anthropic both
// accept function names matching ^[A-Za-z0-9_-]{1,64}$.
const MaxToolNameBytes = 64

// toolPrefix and nameSep build mcp__SERVER__TOOL, the contract of docs/architecture.md, The agent runner.
const (
	toolPrefix = "mcp__"
	nameSep    = "__"
)

// sanitizePart makes one name part fit [A-Za-z0-9_-] without "__" inside and
// without a leading or trailing '_', so that a full name splits at its first
// "__" after the prefix. Every other byte becomes '_', runs of '_' collapse to
// one, and an empty result becomes "x".
func sanitizePart(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	lastUnderscore := true // drops leading underscores
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-':
			b.WriteByte(c)
			lastUnderscore = false
		default: // '_' and everything outside the alphabet
			if !lastUnderscore {
				b.WriteByte('_')
				lastUnderscore = true
			}
		}
	}
	out := strings.TrimSuffix(b.String(), "_")
	if out == "" {
		return "x"
	}
	return out
}

// fullToolName returns mcp__SERVER__TOOL for the sanitized parts, at most
// MaxToolNameBytes long. A longer name is cut and ends in '_' plus 8 hex
// digits of the SHA-256 of the untruncated name, so distinct long names stay
// distinct in practice.
func fullToolName(server, tool string) string {
	name := toolPrefix + sanitizePart(server) + nameSep + sanitizePart(tool)
	if len(name) <= MaxToolNameBytes {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	suffix := "_" + hex.EncodeToString(sum[:4])
	return strings.TrimRight(name[:MaxToolNameBytes-len(suffix)], "_") + suffix
}

// uniqueName returns name, or name with "_2", "_3", ... appended (cutting the
// name to stay within MaxToolNameBytes) when taken already holds it. It
// records the result in taken.
func uniqueName(name string, taken map[string]bool) string {
	candidate := name
	for n := 2; taken[candidate]; n++ {
		suffix := "_" + strconv.Itoa(n)
		base := name
		if len(base)+len(suffix) > MaxToolNameBytes {
			base = strings.TrimRight(base[:MaxToolNameBytes-len(suffix)], "_")
		}
		candidate = base + suffix
	}
	taken[candidate] = true
	return candidate
}
