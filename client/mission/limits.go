package mission

import (
	"encoding/json"
	"fmt"

	"github.com/magi-code/magi-code/client/human"
	"github.com/magi-code/magi-code/protocol"
)

// limits are the bounds initialize reports that a prompt must keep: a
// prompt over prompt_bytes is refused by the backend, and a request frame
// over frame_bytes makes the backend close the connection
// (docs/protocol.md, Bounds). Mission Control never sends either: the
// draft stays in the input, and the input says how big it is.
type limits struct {
	frame, prompt int
}

// limitsOf is the limits initialize reported; a missing one is version
// 1's value.
func limitsOf(frame, prompt int) limits {
	if frame <= 0 {
		frame = protocol.MaxInputFrameBytes
	}
	if prompt <= 0 {
		prompt = protocol.MaxPromptBytes
	}
	return limits{frame: frame, prompt: prompt}
}

// frameOverhead is room for turn.start's envelope around its params: the
// protocol name and version, an ID of at most 64 bytes, the method.
const frameOverhead = 256

// tooBig says why the backend would refuse prompt for its size, or "".
func (l limits) tooBig(prompt string) string {
	if n := len(prompt); n > l.prompt {
		return fmt.Sprintf("the prompt is %s; at most %s can be sent", bytesFor(n), bytesFor(l.prompt))
	}
	// Encoded, a byte may take six (a control character, <, > or &).
	p, _ := json.Marshal(map[string]string{"session_id": "00000000-0000-0000-0000-000000000000", "prompt": prompt})
	if len(p)+frameOverhead > l.frame {
		return fmt.Sprintf("the prompt is %s encoded, over the %s a request can carry", bytesFor(len(p)), bytesFor(l.frame))
	}
	return ""
}

// bytesFor is a size for people, exact below a KiB ("1 byte", "900
// bytes", "16.0 KiB").
func bytesFor(n int) string {
	switch {
	case n == 1:
		return "1 byte"
	case n < 1024:
		return fmt.Sprintf("%d bytes", n)
	}
	return human.Size(int64(n))
}

// draftLines is the input's size line: shown once the draft is 1 KiB or
// more, or too big to send.
func (m *Model) draftLines(width int) []string {
	v := m.input.Value()
	if len(v) < 1024 || m.mode != modePrompt {
		return nil
	}
	if why := m.limits.tooBig(v); why != "" {
		return wrapLines(styleError().Render("draft too big to send: "+why), width)
	}
	return wrapLines(styleDim().Render(fmt.Sprintf("draft %s of the %s a prompt can be", bytesFor(len(v)), bytesFor(m.limits.prompt))), width)
}
