package conformance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"

	"github.com/magi-code/magi-code/protocol/transcripts"
)

// Load parses every embedded transcript, sorted by name.
func Load() ([]*Transcript, error) {
	names, err := fs.Glob(transcripts.FS, "*.txtar")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []*Transcript
	for _, n := range names {
		data, err := transcripts.FS.ReadFile(n)
		if err != nil {
			return nil, err
		}
		t, err := Parse(strings.TrimSuffix(n, ".txtar"), data)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// Kit runs the provider-independent transcripts against srv, writing one
// line per transcript and one per stream check, then a summary, to w. It
// reports whether everything passed.
func Kit(ctx context.Context, srv Server, w io.Writer) (bool, error) {
	all, err := Load()
	if err != nil {
		return false, err
	}
	failed := map[string]string{} // stream check -> first failure
	frames, passed, total := 0, 0, 0
	for _, t := range all {
		if !t.Kit {
			continue
		}
		total++
		st, err := Run(ctx, t, srv)
		frames += st.Frames
		title, _, _ := strings.Cut(t.Doc, "\n")
		if err == nil {
			passed++
			fmt.Fprintf(w, "ok    %-28s %s\n", t.Name, title)
			continue
		}
		fmt.Fprintf(w, "FAIL  %-28s %s\n", t.Name, oneLine(err.Error()))
		var f *Failure
		if errors.As(err, &f) && f.Check != "" && failed[f.Check] == "" {
			failed[f.Check] = t.Name + ": " + oneLine(f.Msg)
		}
	}
	for _, c := range Checks {
		total++
		if msg := failed[c.Name]; msg != "" {
			fmt.Fprintf(w, "FAIL  %-28s %s\n", c.Name, msg)
			continue
		}
		passed++
		fmt.Fprintf(w, "ok    %-28s %s (%d frames)\n", c.Name, c.What, frames)
	}
	verdict := "PASS"
	if passed != total {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "%s  %d checks: %d passed, %d failed\n", verdict, total, passed, total-passed)
	return passed == total, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
