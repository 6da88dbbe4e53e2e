package history

import (
	"io"
	"os"
	"slices"

	"github.com/magi-code/magi-code/protocol"
)

// replayLog is the provider conversation of a session (see
// Attachment.Replay) folded from its file, kept by the attachment between
// turns: each replay reads only the lines appended since the last one, so a
// turn's replay costs what the previous turn added, not the whole session.
type replayLog struct {
	sessionID string
	header    *Record // the file's header once read
	at        int64   // bytes of the file folded
	lines     int     // lines of the file folded

	out       []Record
	segments  map[pair]int   // run ID, message ID -> index in out
	pending   map[int][]byte // chunk text of segments not yet completed
	completed map[int]bool
}

func newReplayLog(sessionID string) *replayLog {
	return &replayLog{sessionID: sessionID, segments: map[pair]int{}, pending: map[int][]byte{}, completed: map[int]bool{}}
}

// catchUp folds the complete lines of f between what was folded and size
// (the end of the last complete line the attachment knows of). On a code
// the log is unusable.
func (l *replayLog) catchUp(f *os.File, size int64) protocol.Code {
	if l.at >= size {
		return ""
	}
	sc, code := scanFrom(io.NewSectionReader(f, l.at, size-l.at), l.sessionID, false, l.header, l.at, l.lines, l.fold)
	if code != "" {
		return code
	}
	l.header = sc.header
	l.at += sc.valid
	l.lines += sc.lines
	return ""
}

// fold adds one record.
func (l *replayLog) fold(r *Record) protocol.Code {
	switch r.Type {
	case TypeCompaction:
		// Replay starts at the last compaction, its summary first.
		l.out = l.out[:0]
		clear(l.segments)
		clear(l.pending)
		clear(l.completed)
		l.out = append(l.out, *r)
	case TypeInput, TypeInternalInput, TypeToolCall, TypeToolResult, TypeRunCompleted:
		l.out = append(l.out, *r)
	case TypeAssistantChunk, TypeAssistant:
		key := pair{r.RunID, r.MessageID}
		i, ok := l.segments[key]
		if !ok {
			i = len(l.out)
			l.segments[key] = i
			l.out = append(l.out, Record{Type: TypeAssistant, SessionID: l.sessionID, RunID: r.RunID, MessageID: r.MessageID, HasText: true, Partial: true})
		}
		if r.Type == TypeAssistantChunk {
			if !l.completed[i] {
				l.pending[i] = append(l.pending[i], r.Text...)
			}
			break
		}
		if r.HasText {
			l.out[i].Text = r.Text
		} else {
			l.out[i].Text = string(l.pending[i])
		}
		delete(l.pending, i)
		l.completed[i] = true
		l.out[i].Partial = r.Partial
	}
	return ""
}

// records returns a copy of the conversation: segments that never
// completed carry the text of their stored chunks.
func (l *replayLog) records() []Record {
	out := slices.Clone(l.out)
	for i, b := range l.pending {
		out[i].Text = string(b)
	}
	return out
}
