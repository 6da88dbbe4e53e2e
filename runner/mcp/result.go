package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
)

// renderResult turns a tool result into the text the model sees: text parts
// as they are, embedded text resources as their text, and a short bracketed
// note for images, audio, blobs and resource links (their bytes are not
// text). With no content, structured content is rendered as JSON.
func renderResult(res *mcp.CallToolResult) string {
	var b strings.Builder
	for i, c := range res.Content {
		if i > 0 {
			b.WriteByte('\n')
		}
		switch {
		case asText(c) != nil:
			b.WriteString(asText(c).Text)
		case asImage(c) != nil:
			img := asImage(c)
			fmt.Fprintf(&b, "[image %s, %d base64 bytes]", img.MIMEType, len(img.Data))
		case asAudio(c) != nil:
			a := asAudio(c)
			fmt.Fprintf(&b, "[audio %s, %d base64 bytes]", a.MIMEType, len(a.Data))
		case asLink(c) != nil:
			fmt.Fprintf(&b, "[resource link %s]", asLink(c).URI)
		case asEmbedded(c) != nil:
			writeResource(&b, asEmbedded(c).Resource)
		default:
			b.WriteString("[unsupported content]")
		}
	}
	if len(res.Content) == 0 {
		structured := []byte(res.RawStructuredContent)
		if len(structured) == 0 && res.StructuredContent != nil {
			structured, _ = json.Marshal(res.StructuredContent)
		}
		b.Write(structured)
	}
	return b.String()
}

func writeResource(b *strings.Builder, r mcp.ResourceContents) {
	if t, ok := mcp.AsTextResourceContents(r); ok {
		b.WriteString(t.Text)
		return
	}
	if blob, ok := mcp.AsBlobResourceContents(r); ok {
		fmt.Fprintf(b, "[binary resource %s %s, %d base64 bytes]", blob.URI, blob.MIMEType, len(blob.Blob))
		return
	}
	b.WriteString("[unsupported resource]")
}

func asText(c mcp.Content) *mcp.TextContent          { t, _ := mcp.AsTextContent(c); return t }
func asImage(c mcp.Content) *mcp.ImageContent        { t, _ := mcp.AsImageContent(c); return t }
func asAudio(c mcp.Content) *mcp.AudioContent        { t, _ := mcp.AsAudioContent(c); return t }
func asEmbedded(c mcp.Content) *mcp.EmbeddedResource { t, _ := mcp.AsEmbeddedResource(c); return t }

func asLink(c mcp.Content) *mcp.ResourceLink {
	switch l := c.(type) {
	case mcp.ResourceLink:
		return &l
	case *mcp.ResourceLink:
		return l
	}
	return nil
}

// bound returns text cut to at most max bytes, at a UTF-8 boundary, ending
// in a note that says how much was cut so the model knows it saw a part.
// max <= 0 means no bound.
func bound(text string, max int) string {
	if max <= 0 || len(text) <= max {
		return text
	}
	// The longest note the shown count can produce.
	note := fmt.Sprintf("\n[truncated: %d of %d bytes shown]", len(text), len(text))
	keep := max - len(note)
	if keep <= 0 {
		// The bound cannot even hold the note: cut the text alone.
		keep = max
		note = ""
	}
	for keep > 0 && !utf8.RuneStart(text[keep]) {
		keep--
	}
	if note != "" {
		note = fmt.Sprintf("\n[truncated: %d of %d bytes shown]", keep, len(text))
	}
	return text[:keep] + note
}
