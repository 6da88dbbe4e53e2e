package config

import (
	"bytes"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// splitFrontMatter separates a leading "---" block from the Markdown body.
// has is false when the document does not start with "---"; an opening
// delimiter without a closing one is an error.
func splitFrontMatter(doc []byte) (fm string, body []byte, has bool, err error) {
	doc = bytes.TrimPrefix(doc, []byte("\xef\xbb\xbf"))
	first, rest, _ := bytes.Cut(doc, []byte("\n"))
	if string(bytes.TrimRight(first, " \t\r")) != "---" {
		return "", doc, false, nil
	}
	for off := 0; off <= len(rest); {
		line, _, _ := bytes.Cut(rest[off:], []byte("\n"))
		next := off + len(line) + 1
		if string(bytes.TrimRight(line, " \t\r")) == "---" {
			if next > len(rest) {
				next = len(rest)
			}
			return string(rest[:off]), rest[next:], true, nil
		}
		off = next
	}
	return "", nil, true, errors.New("front matter not closed")
}

var fmKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z0-9_-]+):(?:\s+(.*))?$`) })

// parseFrontMatter reads the YAML subset that agent profiles and skills use:
// "key: scalar", "key: [a, b]", a block list ("key:" then "  - item" lines),
// and block scalars ("key: |" or "key: >" then indented lines). Scalars may
// be plain, 'single' or "double" quoted. Values are string or []string.
// Anything else (nested maps, anchors, duplicate keys) is an error.
func parseFrontMatter(fm string) (map[string]any, error) {
	out := map[string]any{}
	lines := strings.Split(fm, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \t\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := fmKey().FindStringSubmatch(line)
		if m == nil {
			return nil, errors.New("front matter: expected key: value")
		}
		key, val := m[1], strings.TrimSpace(m[2])
		if _, dup := out[key]; dup {
			return nil, errors.New("front matter: duplicate key")
		}
		// Collect the indented continuation lines of this key.
		var cont []string
		for i+1 < len(lines) {
			next := strings.TrimRight(lines[i+1], " \t\r")
			if next != "" && next[0] != ' ' && next[0] != '\t' {
				break
			}
			cont = append(cont, next)
			i++
		}
		for len(cont) > 0 && strings.TrimSpace(cont[len(cont)-1]) == "" {
			cont = cont[:len(cont)-1]
		}
		switch {
		case val == "|" || val == ">":
			texts := make([]string, len(cont))
			for j, c := range cont {
				texts[j] = strings.TrimSpace(c)
			}
			sep := "\n"
			if val == ">" {
				sep = " "
			}
			out[key] = strings.Join(texts, sep)
		case len(cont) > 0:
			if val != "" {
				return nil, errors.New("front matter: unexpected indented line")
			}
			items := []string{}
			for _, c := range cont {
				c = strings.TrimSpace(c)
				if c == "" {
					continue
				}
				item, ok := strings.CutPrefix(c, "- ")
				if !ok && c != "-" {
					return nil, errors.New("front matter: nested values are not supported")
				}
				s, err := scalar(strings.TrimSpace(item))
				if err != nil {
					return nil, err
				}
				items = append(items, s)
			}
			out[key] = items
		case strings.HasPrefix(val, "["):
			if !strings.HasSuffix(val, "]") {
				return nil, errors.New("front matter: unclosed list")
			}
			items, err := flowList(val[1 : len(val)-1])
			if err != nil {
				return nil, err
			}
			out[key] = items
		default:
			s, err := scalar(val)
			if err != nil {
				return nil, err
			}
			out[key] = s
		}
	}
	return out, nil
}

// flowList splits "a, 'b, c', \"d\"" into items, honouring quotes.
func flowList(s string) ([]string, error) {
	items := []string{}
	if strings.TrimSpace(s) == "" {
		return items, nil
	}
	var quote byte
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			c := s[i]
			switch {
			case quote != 0 && c == '\\' && quote == '"':
				i++
				continue
			case quote != 0 && c == quote:
				quote = 0
				continue
			case quote != 0:
				continue
			case c == '"' || c == '\'':
				quote = c
				continue
			case c != ',':
				continue
			}
		}
		item, err := scalar(strings.TrimSpace(s[start:i]))
		if err != nil {
			return nil, err
		}
		if item == "" {
			return nil, errors.New("front matter: empty list item")
		}
		items = append(items, item)
		start = i + 1
	}
	if quote != 0 {
		return nil, errors.New("front matter: unclosed quote")
	}
	return items, nil
}

// scalar decodes a plain or quoted scalar.
func scalar(s string) (string, error) {
	switch {
	case strings.HasPrefix(s, `"`):
		v, err := strconv.Unquote(s)
		if err != nil {
			return "", errors.New("front matter: bad double-quoted string")
		}
		return v, nil
	case strings.HasPrefix(s, "'"):
		if len(s) < 2 || !strings.HasSuffix(s, "'") {
			return "", errors.New("front matter: bad single-quoted string")
		}
		inner := s[1 : len(s)-1]
		if strings.Count(strings.ReplaceAll(inner, "''", ""), "'") != 0 {
			return "", errors.New("front matter: bad single-quoted string")
		}
		return strings.ReplaceAll(inner, "''", "'"), nil
	case strings.HasPrefix(s, "{") || strings.HasPrefix(s, "&") || strings.HasPrefix(s, "*") || strings.HasPrefix(s, "!"):
		return "", errors.New("front matter: unsupported value")
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s, nil
}
