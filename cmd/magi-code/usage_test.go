package main

import (
	"debug/buildinfo"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// Every command answers -h and --help with its own usage lines, on stdout
// with 0, and does nothing else: `model --help` stores no model. A command
// missing its subcommand or arguments lists what it takes on stderr with 2.
func TestCommandUsage(t *testing.T) {
	ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings)
	settings := filepath.Join(ws.Home, "settings.toml")
	before, _ := os.ReadFile(settings)
	for _, args := range [][]string{
		{"model", "--help"}, {"model", "-h"}, {"model", "openai", "--help"}, {"help", "model"},
		{"sessions", "--help"}, {"mcp", "approve", "-h"}, {"logout", "--help"}, {"login", "-h"},
		{"serve", "--help"}, {"logs", "--help"}, {"resume", "-h"}, {"config", "--help"}, {"version", "--help"},
	} {
		topic := args[0]
		if topic == "help" {
			topic = args[1]
		}
		o := runIn(t, ws, "", args)
		o.want(t, strings.Join(args, " "), 0, []string{"  magi-code " + topic}, nil)
		if o.stdout != topicHelp(topic) {
			t.Fatalf("%v printed %q; want that command's help", args, o.stdout)
		}
	}
	if after, _ := os.ReadFile(settings); string(after) != string(before) {
		t.Fatalf("a --help changed the settings:\n%s", after)
	}
	for args, want := range map[string][]string{
		"sessions":     {"magi-code sessions list", "magi-code sessions prune"},
		"config":       {"magi-code config show"},
		"mcp":          {"magi-code mcp list", "magi-code mcp approve NAME"},
		"logout":       {"magi-code logout PROVIDER"},
		"sessions foo": {"magi-code sessions list", "magi-code sessions prune"},
		"model a b c":  {"magi-code model [[PROVIDER] NAME]"},
	} {
		o := runIn(t, ws, "", strings.Fields(args))
		o.want(t, args, 2, nil, append([]string{"magi-code: usage: " + strings.Fields(args)[0] + " takes one of:\n"}, want...))
		if strings.Contains(o.stderr, "unknown command") || strings.Contains(o.stderr, "foo") {
			t.Fatalf("%s: stderr %q", args, o.stderr)
		}
	}
	runIn(t, ws, "", []string{"nosuch"}).want(t, "nosuch", 2, nil, []string{"magi-code: usage: unknown command; magi-code help lists the commands\n"})
}

// A model name is refused before anything is stored when it has white
// space, control characters, a leading '-' or looks like an API key; the
// name is never repeated. logout and login refuse a provider they do not
// know.
func TestModelAndProviderNamesRefused(t *testing.T) {
	ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings)
	settings := filepath.Join(ws.Home, "settings.toml")
	before, _ := os.ReadFile(settings)
	for _, args := range [][]string{
		{"model", "gpt 4o"}, {"model", "--verbose"}, {"model", "-x"}, {"model", "a\x1b[2Jb"}, {"model", ""},
		{"model", "openai", "two words"}, {"model", "sk-proj-0123456789abcdefghijklmn"}, {"model", "nosuchprovider", "mmm-name"},
	} {
		o := runIn(t, ws, "", args)
		o.want(t, strings.Join(args, " "), 2, nil, []string{"magi-code: usage: model: "})
		if name := args[len(args)-1]; name != "" && strings.Contains(o.stderr, name) {
			t.Fatalf("%q: the refusal repeats the name: %q", args, o.stderr)
		}
	}
	if after, _ := os.ReadFile(settings); string(after) != string(before) {
		t.Fatalf("a refused model name changed the settings:\n%s", after)
	}
	for _, args := range [][]string{{"logout", "foo"}, {"logout", "fixture"}, {"login", "foo"}} {
		runIn(t, ws, "", args).want(t, strings.Join(args, " "), 2, nil, []string{errUnknownProvider + "\n"})
	}
	for _, args := range [][]string{{"logout", "a/b"}, {"login", "../x"}, {"login", "a b"}} {
		runIn(t, ws, "", args).want(t, strings.Join(args, " "), 2, nil, []string{"magi-code: usage: the provider is a provider name"})
	}
}

// version and --version print the module version, the source revision
// when the build recorded one, and the Go release, from the binary's build
// information; a second line, and a line of config show, warn exactly
// when that release lacks security fixes. The release go.mod's toolchain
// line names (what the Makefile builds with) has them.
func TestVersion(t *testing.T) {
	ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings)
	goVersion, warning := binaryWarning(t)
	for _, arg := range []string{"version", "--version"} {
		o := runIn(t, ws, "", []string{arg})
		first, rest, _ := strings.Cut(o.stdout, "\n")
		if o.code != 0 || o.stderr != "" || !regexp.MustCompile(`^magi-code \S+(, revision [0-9a-f]{7,}[^\n]*)?, go1\.\d+[^\n]*$`).MatchString(first) {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", arg, o.code, o.stdout, o.stderr)
		}
		if !strings.HasSuffix(first, ", "+goVersion) {
			t.Fatalf("%s: %q lacks the Go release %s", arg, first, goVersion)
		}
		if want := warning + "\n"; warning != "" && rest != want || warning == "" && rest != "" {
			t.Fatalf("%s: after the first line %q; want %q (built with %s)", arg, rest, warning, goVersion)
		}
	}
	if o := runIn(t, ws, "", []string{"config", "show"}); o.code != 0 || (warning != "") != strings.Contains(o.stdout, "known security fixes missing") ||
		warning != "" && !strings.Contains(o.stdout, "\n"+warning+"\n") {
		t.Fatalf("config show of a binary built with %s: exit %d\n%s", goVersion, o.code, o.stdout)
	}
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	toolchain := regexp.MustCompile(`(?m)^toolchain (go\S+)$`).FindSubmatch(mod)
	if toolchain == nil || warningLine(string(toolchain[1])) != "" {
		t.Fatalf("go.mod's toolchain line %q: the Makefile's build would warn", toolchain)
	}
}

// version on a stdout nobody reads (a pipe whose reader is closed) exits 1.
func TestVersionBrokenStdout(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	cmd := exec.Command(clienttest.Binary(t), "version")
	cmd.Stdout = w
	err = cmd.Run()
	w.Close()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("version on a broken stdout: %v; want exit 1", err)
	}
}

// binaryWarning is the Go release the binary under test was built with,
// from its build information, and the warning it must print.
func binaryWarning(t *testing.T) (goVersion, warning string) {
	t.Helper()
	info, err := buildinfo.ReadFile(clienttest.Binary(t))
	if err != nil {
		t.Fatal(err)
	}
	return info.GoVersion, warningLine(info.GoVersion)
}

// mcp list says when no server is configured instead of printing nothing.
func TestMCPListEmpty(t *testing.T) {
	ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings)
	runIn(t, ws, "", []string{"mcp", "list"}).want(t, "mcp list", 0, []string{"no MCP servers configured"}, nil)
}

// The setting errors a person meets at the command line name the key and
// the file, never the value, and a near setting: config show on a typo,
// model NAME on a global file others may read (with the chmod that fixes
// it, while reading the file works and warns).
func TestSettingsMessagesNameKeyAndFile(t *testing.T) {
	ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings+"modle = \"v4lue\"\n")
	shown := "~/" + filepath.Base(ws.Home) + "/settings.toml"
	o := runIn(t, ws, "", []string{"config", "show"})
	o.want(t, "config show with a typo", 1, nil, []string{"unknown setting `modle` in " + shown + "; did you mean `model`?"})
	if strings.Contains(o.stderr, "v4lue") || strings.Contains(o.stderr, "/login") {
		t.Fatalf("config show: %q", o.stderr)
	}

	ws = clienttest.NewWorkspace(t, clienttest.FixtureSettings)
	path := filepath.Join(ws.Home, "settings.toml")
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	canon, _ := filepath.EvalSymlinks(path)
	runIn(t, ws, "", []string{"config", "show"}).want(t, "config show of a 0644 file", 0,
		[]string{"# warning: " + canon + " is readable by group or others", "`chmod 600 " + canon + "`", "# readiness: ready\n"}, nil)
	runIn(t, ws, "", []string{"model", "other-model"}).want(t, "model NAME into a 0644 file", 1, nil,
		[]string{"magi-code: model: " + canon + " is readable by group or others", "run `chmod 600 " + canon + "`"})
}

// magi-code model says what is not ready in words, with the command that
// fixes it, never as the startup code.
func TestModelReadinessForPeople(t *testing.T) {
	ws := clienttest.NewWorkspace(t, "provider = \"openai\"\nmodel = \"gpt-x\"\n")
	o := runIn(t, ws, "", []string{"model"})
	o.want(t, "model without a credential", 0, []string{"provider openai (global), model gpt-x (global): not ready: no usable credential", "/login"}, nil)
	if strings.Contains(o.stdout, "provider_unavailable") {
		t.Fatalf("model printed the code: %q", o.stdout)
	}
}
