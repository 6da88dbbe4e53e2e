package acp

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/magi-code/magi-code/acp/jsonrpc"
	"github.com/magi-code/magi-code/chunk"
	"github.com/magi-code/magi-code/internal/jsonenc"
	"github.com/magi-code/magi-code/protocol"
)

// Text parts: a message's text goes out in chunks of at most
// chunkRawBytes raw bytes and chunkEscBytes once JSON-escaped, so that a
// chunk's frame, with the envelope and IDs (each at most idBytes), stays
// within protocol.MaxOutputFrameBytes.
const (
	chunkRawBytes = 16 << 10
	idBytes       = 256
	chunkEscBytes = protocol.MaxOutputFrameBytes - 512 - 4*idBytes
)

// marshal encodes v as JSON without HTML escaping (a frame's size is what
// jsonenc counts) and without the encoder's trailing LF.
func marshal(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte(`{}`)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
}

// notify is the session/update notification frame of one update.
func (a *Agent) notify(sessionID string, update any) []byte {
	params := marshal(obj{"sessionId": sessionID, "update": update})
	return jsonrpc.AppendNotification(nil, mSessionUpdate, params)
}

// appendTextChunk appends the frame of one text chunk of kind
// (agent_message_chunk, agent_thought_chunk, user_message_chunk), built
// with appends: text is one part (textParts), already redacted.
func appendTextChunk(dst []byte, sessionID, kind, messageID, text string) []byte {
	p := append(make([]byte, 0, 160+len(sessionID)+len(messageID)+jsonenc.EscapedLen(text)), `{"sessionId":`...)
	p = jsonenc.AppendString(p, sessionID)
	p = append(p, `,"update":{"sessionUpdate":"`...)
	p = append(p, kind...)
	p = append(p, `","messageId":`...)
	p = jsonenc.AppendString(p, messageID)
	p = append(p, `,"content":{"type":"text","text":`...)
	p = jsonenc.AppendString(p, text)
	p = append(p, "}}}"...)
	return jsonrpc.AppendNotification(dst, mSessionUpdate, p)
}

// textParts splits text into the parts of its chunks.
func textParts(text string) []string {
	return chunk.Split(text, chunkRawBytes, chunkEscBytes)
}

// fitText cuts s to at most esc bytes once JSON-escaped (at a rune
// boundary), marked when cut.
func fitText(s string, esc int) string {
	if jsonenc.EscapedLen(s) <= esc {
		return s
	}
	n := chunk.Next(s, esc, esc-len(cutMarker))
	return s[:n] + cutMarker
}

// cutMarker marks text cut to fit a frame.
const cutMarker = "\n[cut to fit]"

// cutRunes cuts s to at most n bytes at a rune boundary.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
