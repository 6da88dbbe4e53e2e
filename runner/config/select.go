package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"

	toml "github.com/pelletier/go-toml/v2"
)

// checkPrivate refuses a global settings file that group or others may
// read, naming the file and the command that fixes it. Settings can hold
// secrets (the env values of an MCP server). Permission bits carry no such
// meaning on Windows.
func checkPrivate(path string, perm fs.FileMode) error {
	if runtime.GOOS == "windows" || perm&0o077 == 0 {
		return nil
	}
	return fmt.Errorf("%s is readable by group or others, and settings can hold secrets (an MCP server's env values); run `chmod 600 %s` to make it private", path, path)
}

// errModelName is CheckModel's answer: the grammar, never the name.
var errModelName = errors.New("not a model name: 1-256 bytes, no spaces or control characters, not starting with '-', not an API key (login stores keys)")

// CheckModel checks a model name before it is stored or used: a name that
// could be reported to a client (SafeName: 1-256 bytes of UTF-8, no white
// space or control characters, nothing secret-like such as a pasted API
// key) and that does not start with '-' (an option typed where the name
// goes, as in `model --help`). The error states the grammar and never
// repeats the name.
func CheckModel(name string) error {
	if _, ok := SafeName(name); !ok || strings.HasPrefix(name, "-") {
		return errModelName
	}
	return nil
}

// LookupProvider returns the effective definition of provider name as the
// settings for env.Cwd define it, and whether `provider = name` would be
// accepted: the fixture (a zero definition), a built-in, or a
// [providers.NAME] table. Settings that do not load know the built-ins
// only. It reads files and nothing else.
func LookupProvider(env Env, name string) (RemoteProvider, bool) {
	if name == FixtureProvider {
		return RemoteProvider{}, true
	}
	if !ValidProviderName(name) {
		return RemoteProvider{}, false
	}
	s := &Settings{}
	if st, err := loadSettings(&env, false); err == nil {
		s = st.settings
	}
	return s.Remote(name)
}

// HomeDir returns MC_HOME as Load resolves it: $MC_HOME, else
// $HOME/.magi-code; it must be absolute.
func (e Env) HomeDir() (string, error) { return e.homeDir() }

// topKey matches a top-level assignment line and captures its key.
var topKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*([A-Za-z0-9_-]+)\s*=`) })

// SetSelection writes the top-level provider and model keys (model only
// when model is not empty) into the global settings file, creating it (0600,
// with schema_version = 2) when missing. Every other line, comments, tables
// and formatting included, stays as written: the keys' own lines are
// replaced in place, or added after the last top-level value. The result must
// parse and carry exactly the new values, else nothing is written. Errors
// are for a person at a terminal.
func SetSelection(env Env, provider, model string) error {
	if _, known := LookupProvider(env, provider); !known {
		return fmt.Errorf("unknown provider (one of %s, or a [providers.NAME] table with kind)", strings.Join(BuiltinProviders(), ", "))
	}
	if model != "" {
		if err := CheckModel(model); err != nil {
			return err
		}
	}
	home, err := env.homeDir()
	if err != nil {
		return err
	}
	path := filepath.Join(home, "settings.toml")
	perm := os.FileMode(0o600)
	old, oldPerm, err := readBounded(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = []byte("schema_version = 2\n")
		if err := os.MkdirAll(home, 0o700); err != nil {
			return err
		}
	case err != nil:
		return err
	default:
		// Settings can hold secrets (an MCP server's env values): this
		// command keeps them private or leaves the file alone, and says
		// how to make it private (loading warns the same way).
		if err := checkPrivate(path, oldPerm); err != nil {
			return err
		}
		perm = oldPerm
	}
	set := map[string]string{"provider": provider}
	if model != "" {
		set["model"] = model
	}
	data := setTopLevel(old, set, []string{"provider", "model"})
	var check map[string]any
	if err := toml.Unmarshal(data, &check); err != nil {
		return errors.New("the global settings file does not parse; fix it or edit it by hand")
	}
	for k, v := range set {
		if check[k] != v {
			return errors.New("the global settings file is laid out in a way this command cannot edit safely; edit it by hand")
		}
	}
	return WriteAtomic(path, data, perm)
}

// setTopLevel returns data with the top-level keys of set assigned (quoted
// TOML basic strings), in the order of order for added lines.
func setTopLevel(data []byte, set map[string]string, order []string) []byte {
	lines := strings.SplitAfter(string(data), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	firstTable := len(lines)
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "[") {
			firstTable = i
			break
		}
	}
	done := map[string]bool{}
	for i := range firstTable {
		m := topKey().FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		if v, ok := set[m[1]]; ok && !done[m[1]] {
			line := m[1] + " = " + quoteTOML(v)
			if c := trailingComment(lines[i][len(m[0]):]); c != "" {
				line += " " + c
			}
			lines[i] = line + "\n"
			done[m[1]] = true
		}
	}
	var added []string
	for _, k := range order {
		if v, ok := set[k]; ok && !done[k] {
			added = append(added, k+" = "+quoteTOML(v)+"\n")
		}
	}
	// Added keys go after the last top-level line that is neither blank nor
	// a comment (the end of the last value, multi-line arrays included), or
	// just before the first table when there is none.
	at := firstTable
	for i := firstTable - 1; i >= 0; i-- {
		if t := strings.TrimSpace(lines[i]); t != "" && !strings.HasPrefix(t, "#") {
			at = i + 1
			break
		}
	}
	if at > 0 && !strings.HasSuffix(lines[at-1], "\n") {
		lines[at-1] += "\n"
	}
	out := append(append(append([]string{}, lines[:at]...), added...), lines[at:]...)
	return []byte(strings.Join(out, ""))
}

// trailingComment returns the comment that follows a one-line TOML value
// (the text after "key ="), without the line's end, or "". A '#' inside a
// quoted string is not a comment. A value that goes on past its line (a
// multi-line string or array) yields ""; the caller's parse check then
// refuses the edit.
func trailingComment(v string) string {
	v = strings.TrimRight(strings.TrimLeft(v, " \t"), "\r\n")
	rest := ""
	switch {
	case v == "" || strings.HasPrefix(v, `"""`) || strings.HasPrefix(v, "'''"):
		return ""
	case v[0] == '"':
		for i := 1; i < len(v); i++ {
			if v[i] == '\\' {
				i++
			} else if v[i] == '"' {
				rest = v[i+1:]
				break
			}
		}
	case v[0] == '\'':
		if end := strings.IndexByte(v[1:], '\''); end >= 0 {
			rest = v[end+2:]
		}
	default:
		if at := strings.IndexByte(v, '#'); at >= 0 {
			rest = v[at:]
		}
	}
	if rest = strings.TrimSpace(rest); strings.HasPrefix(rest, "#") {
		return rest
	}
	return ""
}

// quoteTOML quotes s as a TOML basic string (JSON's escapes are a subset).
func quoteTOML(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
