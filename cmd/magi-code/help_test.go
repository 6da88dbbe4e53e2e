package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
)

// TestEveryCommandHasHelp: the help of every command of the usage text
// (and of magi-code alone) has its flags (each --flag its usage lines
// name), its environment variables and its exit codes, and the binary
// prints exactly that for COMMAND --help.
func TestEveryCommandHasHelp(t *testing.T) {
	topics := append([]string{""}, commandNames()...)
	topics = append(topics, "--prompt", "--continue")
	flag := regexp.MustCompile(`--[a-z]+`)
	for _, topic := range topics {
		if topic == "help" {
			continue // help help is no command
		}
		if _, ok := commandDetails[topic]; !ok {
			t.Errorf("%q has no entry in commandDetails (help.go)", topic)
			continue
		}
		h := topicHelp(topic)
		flags, rest, ok1 := strings.Cut(h, "\nFlags:\n")
		flagPart, exits, ok2 := strings.Cut(rest, "\nExit codes:\n")
		if !ok1 || !ok2 || !regexp.MustCompile(`(?m)^  0  `).MatchString(exits) {
			t.Errorf("help %q lacks a Flags or an Exit codes section with code 0:\n%s", topic, h)
			continue
		}
		if topic != "version" && !strings.Contains(flagPart, "\nEnvironment:\n  MC_HOME") {
			t.Errorf("help %q lacks its environment:\n%s", topic, h)
		}
		usageLines := flags
		if topic == "" {
			usageLines = "" // the flags of all commands are theirs
		}
		for _, f := range flag.FindAllString(usageLines, -1) {
			if !strings.Contains(flagPart, f) {
				t.Errorf("help %q: its usage names %s, its Flags do not:\n%s", topic, f, h)
			}
		}
	}
	ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings)
	for _, args := range [][]string{{"--help"}, {"schema", "--help"}, {"completion", "--help"}, {"logs", "-h"}, {"--prompt", "--help"}} {
		topic := args[0]
		if len(args) == 1 {
			topic = ""
		}
		o := runIn(t, ws, "", args)
		if o.code != 0 || o.stdout != topicHelp(topic) {
			t.Errorf("%v: exit %d, printed %q; want the help of %q", args, o.code, o.stdout, topic)
		}
	}
}

// TestComplete: the candidates of each position come from the usage text
// and, for placeholders, from their sources.
func TestComplete(t *testing.T) {
	src := completionSource{
		sessions: func() []string { return []string{"s-new", "s-old"} },
		servers:  func() []string { return []string{"github"} },
	}
	for _, tc := range []struct {
		words      []string
		want, dont []string
	}{
		{nil, []string{"resume", "serve", "config", "schema", "completion", "--prompt", "--continue", "--help", "--version"}, []string{"__complete", "show"}},
		{[]string{"resume"}, []string{"s-new", "s-old", "--help"}, []string{"github"}},
		{[]string{"schema"}, []string{"protocol", "settings"}, nil},
		{[]string{"config"}, []string{"show"}, []string{"list"}},
		{[]string{"mcp"}, []string{"list", "approve"}, []string{"github"}},
		{[]string{"mcp", "approve"}, []string{"github"}, []string{"list"}},
		{[]string{"mcp", "list"}, []string{"--help"}, []string{"github", "approve"}},
		{[]string{"sessions"}, []string{"list", "prune"}, nil},
		{[]string{"completion"}, []string{"bash", "zsh", "fish"}, nil},
		{[]string{"serve"}, []string{"--stdio"}, nil},
		{[]string{"logs"}, []string{"--follow"}, []string{"INSTANCE"}},
		{[]string{"conformance"}, []string{"--server"}, nil},
		{[]string{"model"}, []string{"openai", "anthropic", "ollama"}, []string{"NAME"}},
		{[]string{"model", "openai"}, []string{"--help"}, []string{"openai"}},
		{[]string{"login"}, []string{"openai", "anthropic"}, nil},
		{[]string{"help"}, []string{"resume", "schema", "completion"}, []string{"COMMAND"}},
		{[]string{"nosuch"}, []string{"--help"}, []string{"resume"}},
	} {
		got := complete(tc.words, src)
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("complete(%q) = %q; lacks %q", tc.words, got, w)
			}
		}
		for _, w := range tc.dont {
			if slices.Contains(got, w) {
				t.Errorf("complete(%q) = %q; has %q", tc.words, got, w)
			}
		}
	}
}

// TestCompletionScripts: each script passes its shell's syntax check where
// that shell is installed, and the bash one, sourced into a real bash,
// completes commands, subcommands and the IDs of this directory's
// sessions by asking the binary.
func TestCompletionScripts(t *testing.T) {
	ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings)
	checked := 0
	for _, shell := range completionShells {
		o := runIn(t, ws, "", []string{"completion", shell})
		if o.code != 0 || o.stdout != completionScript(shell) || o.stdout == "" {
			t.Fatalf("completion %s: exit %d, %q", shell, o.code, o.stderr)
		}
		path, err := exec.LookPath(shell)
		if err != nil {
			t.Logf("%s not installed: its script is not syntax-checked", shell)
			continue
		}
		file := filepath.Join(t.TempDir(), "completion."+shell)
		if err := os.WriteFile(file, []byte(o.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(path, "-n", file).CombinedOutput(); err != nil {
			t.Errorf("%s -n on its completion script: %v\n%s", shell, err, out)
		}
		checked++
	}
	runIn(t, ws, "", []string{"completion", "powershell"}).want(t, "completion powershell", 2, nil, []string{"magi-code: usage: completion takes one of:"})

	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	ch := ws.StartChild(t, client.Options{})
	id := ch.Create().SessionID
	ch.Turn(id, "hello") // stored from its first turn
	ch.Shutdown()
	bin := t.TempDir()
	if err := os.Symlink(clienttest.Binary(t), filepath.Join(bin, "magi-code")); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "completion.bash")
	if err := os.WriteFile(script, []byte(completionScript("bash")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		line string // the words, the last one being typed
		want []string
	}{
		{"magi-code res", []string{"resume"}},
		{"magi-code resume ", []string{id, "--help"}},
		{"magi-code resume " + id[:4], []string{id}},
		{"magi-code schema ", []string{"protocol", "settings", "--help"}},
		{"magi-code completion z", []string{"zsh"}},
	} {
		words := strings.Split(tc.line, " ")
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = "'" + w + "'"
		}
		prog := "source " + script + "\nCOMP_WORDS=(" + strings.Join(quoted, " ") + ")\nCOMP_CWORD=" +
			strconv.Itoa(len(words)-1) + "\n_magi_code\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", prog)
		cmd.Dir = ws.Cwd
		cmd.Env = append(ws.Env(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("bash completing %q: %v\n%s", tc.line, err, out)
		}
		got := strings.Fields(string(out))
		slices.Sort(got)
		want := slices.Clone(tc.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("bash completes %q to %q; want %q", tc.line, got, want)
		}
	}
	if checked == 0 {
		t.Log("no shell installed for the syntax checks")
	}
	// fish completes a whole command line with complete -C.
	fish, err := exec.LookPath("fish")
	if err != nil {
		t.Log("fish not installed: its script is not run")
		return
	}
	fishScript := filepath.Join(t.TempDir(), "completion.fish")
	if err := os.WriteFile(fishScript, []byte(completionScript("fish")), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(fish, "--no-config", "-c", "source "+fishScript+"; complete -C 'magi-code resume '")
	cmd.Dir = ws.Cwd
	cmd.Env = append(ws.Env(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if got := strings.Fields(string(out)); err != nil || !slices.Contains(got, id) {
		t.Errorf("fish completes 'magi-code resume ' to %q (%v); want the session %s", got, err, id)
	}
}

// TestSchemaSettings: magi-code schema settings prints the checked-in
// runner/config/settings.schema.json; schema and schema protocol print the
// protocol's.
func TestSchemaSettings(t *testing.T) {
	ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings)
	file, err := os.ReadFile("../../runner/config/settings.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if o := runIn(t, ws, "", []string{"schema", "settings"}); o.code != 0 || o.stdout != string(file) {
		t.Errorf("schema settings: exit %d; output differs from runner/config/settings.schema.json (%d bytes vs %d)", o.code, len(o.stdout), len(file))
	}
	protocol := runIn(t, ws, "", []string{"schema"})
	if o := runIn(t, ws, "", []string{"schema", "protocol"}); o.code != 0 || o.stdout != protocol.stdout || strings.Contains(o.stdout, "settings.toml") {
		t.Errorf("schema protocol: exit %d; not the protocol schema", o.code)
	}
	runIn(t, ws, "", []string{"schema", "nosuch"}).want(t, "schema nosuch", 2, nil, []string{"magi-code: usage: schema takes one of:"})
}
