package acp

import (
	"encoding/json"
	"strings"
	"unicode"

	"github.com/magi-code/magi-code/protocol"
)

// ResourceCutMarker ends the text of an embedded resource cut at
// MaxResourceBytes.
const ResourceCutMarker = "\n[magi-code: this resource was cut at 1 MiB]"

// block is one prompt content block, as much of it as the agent reads.
type block struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	URI      string `json:"uri"`
	Name     string `json:"name"`
	Resource *struct {
		URI  string  `json:"uri"`
		Text *string `json:"text"`
		Blob *string `json:"blob"`
	} `json:"resource"`
}

// promptText joins a prompt's blocks into the one text the runner gets and
// history stores: text blocks as they are, resource links as a line naming
// them, embedded text resources in a <context> element (cut with
// ResourceCutMarker past MaxResourceBytes). The code is invalid_params for
// a block of another type (image and audio are not advertised) or a blank
// prompt, content_limit past MaxPromptBytes.
func promptText(raw []json.RawMessage) (string, protocol.Code) {
	var b strings.Builder
	for _, r := range raw {
		var bl block
		if json.Unmarshal(r, &bl) != nil {
			return "", protocol.CodeInvalidParams
		}
		switch bl.Type {
		case "text":
			b.WriteString(bl.Text)
		case "resource_link":
			if bl.URI == "" {
				return "", protocol.CodeInvalidParams
			}
			sep(&b)
			b.WriteString("[@" + oneLine(bl.Name) + "](" + oneLine(bl.URI) + ")\n")
		case "resource":
			if bl.Resource == nil || bl.Resource.URI == "" {
				return "", protocol.CodeInvalidParams
			}
			sep(&b)
			b.WriteString("<context uri=\"" + attr(bl.Resource.URI) + "\">\n")
			switch {
			case bl.Resource.Text != nil:
				text := *bl.Resource.Text
				if len(text) > MaxResourceBytes {
					text = cutRunes(text, MaxResourceBytes) + ResourceCutMarker
				}
				b.WriteString(text)
			default:
				b.WriteString("[magi-code: binary resource not included]")
			}
			b.WriteString("\n</context>\n")
		default:
			return "", protocol.CodeInvalidParams
		}
		if b.Len() > MaxPromptBytes {
			return "", protocol.CodeContentLimit
		}
	}
	text := b.String()
	if strings.TrimFunc(text, unicode.IsSpace) == "" {
		return "", protocol.CodeInvalidParams
	}
	return text, ""
}

// sep starts a block on its own line.
func sep(b *strings.Builder) {
	if s := b.String(); s != "" && !strings.HasSuffix(s, "\n") {
		b.WriteByte('\n')
	}
}

// oneLine keeps a name or URI on its line.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, cutRunes(s, 4096))
}

// attr is a URI as an attribute value.
func attr(s string) string {
	return strings.NewReplacer(`"`, "%22", "\n", " ", "\r", " ").Replace(cutRunes(s, 4096))
}
