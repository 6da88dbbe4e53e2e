package conformance

import (
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/tools/txtar"
)

// Transcript is one parsed scenario.
type Transcript struct {
	Name  string
	Doc   string            // the archive's comment, without the conformance line
	Kit   bool              // "conformance: any server": provider-independent
	Files map[string]string // settings.toml, script.json, home/..., work/...
	Steps []Step
}

// StepKind says what a step does.
type StepKind uint8

// Step kinds.
const (
	Send      StepKind = iota + 1 // Text is a JSON line (placeholders substituted)
	SendRaw                       // Text is sent as is
	Fill                          // N bytes of 'x'
	Expect                        // Text is a pattern
	ExpectAny                     // Text is a pattern, zero or more frames
	Unordered                     // Block holds Expect and ExpectAny steps
	Repeat                        // Block is played N times, "{i}" in its text replaced by 1..N
	Close                         // close stdin
	Exit                          // N is the exit status
)

// Step is one line (or unordered block) of a transcript.
type Step struct {
	Line  int // in the transcript file, from 1
	Kind  StepKind
	Text  string
	N     int
	Block []Step
}

// Parse parses a transcript archive.
func Parse(name string, data []byte) (*Transcript, error) {
	ar := txtar.Parse(data)
	t := &Transcript{Name: name, Files: map[string]string{}}
	var doc []string
	for _, l := range strings.Split(strings.TrimSpace(string(ar.Comment)), "\n") {
		if v, ok := strings.CutPrefix(l, "conformance:"); ok {
			t.Kit = strings.TrimSpace(v) == "any server"
			continue
		}
		doc = append(doc, l)
	}
	t.Doc = strings.TrimSpace(strings.Join(doc, "\n"))
	var steps string
	found := false
	for _, f := range ar.Files {
		if f.Name == "transcript" {
			steps, found = string(f.Data), true
			continue
		}
		t.Files[f.Name] = string(f.Data)
	}
	if !found {
		return nil, fmt.Errorf("%s: no transcript file", name)
	}
	var block *Step // an open unordered or repeat block
	for i, line := range strings.Split(steps, "\n") {
		n := i + 1
		line = strings.TrimRight(line, " \t\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, err := parseStep(n, line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, n, err)
		}
		switch {
		case line == "end":
			if block == nil {
				return nil, fmt.Errorf("%s:%d: end without unordered", name, n)
			}
			block = nil
		case (s.Kind == Unordered || s.Kind == Repeat) && block != nil:
			return nil, fmt.Errorf("%s:%d: blocks do not nest", name, n)
		case s.Kind == Unordered || s.Kind == Repeat:
			t.Steps = append(t.Steps, s)
			block = &t.Steps[len(t.Steps)-1]
		case block != nil && block.Kind == Unordered && s.Kind != Expect && s.Kind != ExpectAny:
			return nil, fmt.Errorf("%s:%d: only < and <* lines belong in an unordered block", name, n)
		case block != nil && block.Kind == Repeat && s.Kind != Send && s.Kind != Expect:
			return nil, fmt.Errorf("%s:%d: only > and < lines belong in a repeat block", name, n)
		case block != nil:
			block.Block = append(block.Block, s)
		default:
			t.Steps = append(t.Steps, s)
		}
	}
	if block != nil {
		return nil, fmt.Errorf("%s: a block without end", name)
	}
	return t, nil
}

func parseStep(n int, line string) (Step, error) {
	s := Step{Line: n}
	cmd, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	switch cmd {
	case ">":
		s.Kind, s.Text = Send, arg
	case ">raw":
		u, err := strconv.Unquote(arg)
		if err != nil {
			return s, fmt.Errorf(">raw wants a Go string literal: %v", err)
		}
		s.Kind, s.Text = SendRaw, u
	case ">fill", "exit", "repeat":
		v, err := strconv.Atoi(arg)
		if err != nil || v < 0 {
			return s, fmt.Errorf("%s wants a number", cmd)
		}
		s.Kind, s.N = Fill, v
		switch cmd {
		case "exit":
			s.Kind = Exit
		case "repeat":
			s.Kind = Repeat
		}
	case "<", "<*":
		if _, err := decode([]byte(strings.ReplaceAll(arg, "{i}", "1"))); err != nil {
			return s, fmt.Errorf("pattern is not JSON: %v", err)
		}
		s.Kind, s.Text = Expect, arg
		if cmd == "<*" {
			s.Kind = ExpectAny
		}
	case "unordered":
		s.Kind = Unordered
	case "end":
		s.Kind = Unordered // handled by Parse
	case "close":
		s.Kind = Close
	default:
		return s, fmt.Errorf("unknown step %q", cmd)
	}
	return s, nil
}
