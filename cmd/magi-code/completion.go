package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/magi-code/magi-code/runner/config"
)

// Completion: `magi-code completion bash|zsh|fish` prints a script for
// that shell; the script asks the binary itself for the candidates of the
// word being typed (`magi-code __complete WORDS...`, hidden: the words
// before it), so commands, flags, providers and session IDs come from one
// place, this file, and stay current.

// completionShells are the shells completion writes a script for.
var completionShells = []string{"bash", "zsh", "fish"}

// completionScript is the script of shell; "" for another shell.
func completionScript(shell string) string {
	switch shell {
	case "bash":
		return `# magi-code completion for bash: source <(magi-code completion bash)
_magi_code() {
	local cur=${COMP_WORDS[COMP_CWORD]} IFS=$'\n'
	COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" __complete "${COMP_WORDS[@]:1:COMP_CWORD-1}" 2>/dev/null)" -- "$cur"))
}
complete -o default -F _magi_code magi-code
`
	case "zsh":
		return `#compdef magi-code
# magi-code completion for zsh: source <(magi-code completion zsh), or save as _magi-code in $fpath
_magi_code() {
	local -a candidates
	candidates=("${(@f)$("${words[1]}" __complete "${(@)words[2,CURRENT-1]}" 2>/dev/null)}")
	compadd -- "${candidates[@]}"
}
if [ "$funcstack[1]" = "_magi_code" ]; then
	_magi_code "$@"
else
	compdef _magi_code magi-code
fi
`
	case "fish":
		return `# magi-code completion for fish: magi-code completion fish | source
complete -c magi-code -f -a '(magi-code __complete (commandline -opc)[2..-1])'
`
	}
	return ""
}

// completionSource is what candidates come from beyond the usage text:
// the session IDs of this directory and the MCP servers of its settings.
type completionSource struct {
	sessions func() []string
	servers  func() []string
}

// complete returns the candidates for the word after words (the command
// line without the program name, up to the word being typed): the
// commands and their literal words as usage spells them, their flags,
// and for a placeholder the values that fit it.
func complete(words []string, src completionSource) []string {
	if len(words) == 0 {
		var out []string
		for _, l := range usageLines() {
			if len(l) > 0 {
				out = append(out, l[0]) // commands, and --prompt, --continue
			}
		}
		return dedupe(append(out, "--help", "--version"))
	}
	var out []string
	pos := len(words)
	for _, line := range usageLines() {
		if len(line) <= pos || line[0] != words[0] {
			continue
		}
		// The earlier words must fit the line (literal words exactly).
		fits := true
		for i := 1; i < pos; i++ {
			if w := strings.Trim(line[i], "[]"); !placeholder(w) && w != words[i] {
				fits = false
			}
		}
		if !fits {
			continue
		}
		w := strings.Trim(line[pos], "[]")
		switch {
		case words[0] == "help" && w == "COMMAND":
			out = append(out, commandNames()...)
		case w == "ID" && words[0] == "resume" && src.sessions != nil:
			out = append(out, src.sessions()...)
		case w == "NAME" && words[0] == "mcp" && src.servers != nil:
			out = append(out, src.servers()...)
		case w == "PROVIDER":
			out = append(out, config.BuiltinProviders()...)
		case w == "bash|zsh|fish":
			out = append(out, completionShells...)
		case !placeholder(w):
			out = append(out, w)
		}
	}
	return dedupe(append(out, "--help"))
}

// placeholder reports whether a usage word stands for a value (ID, NAME,
// TEXT, "COMMAND...) rather than being typed as it is.
func placeholder(w string) bool {
	return w == "" || strings.ToUpper(w) == w && !strings.HasPrefix(w, "-") || strings.HasPrefix(w, `"`) || strings.Contains(w, "|")
}

// usageLines is each usage line's words after "magi-code".
func usageLines() [][]string {
	var out [][]string
	for _, line := range strings.Split(usage, "\n") {
		rest, ok := strings.CutPrefix(line, "  magi-code ")
		if !ok {
			continue
		}
		// The description follows two or more spaces; [[PROVIDER] NAME]
		// reads as its words.
		if i := strings.Index(rest, "  "); i >= 0 {
			rest = rest[:i]
		}
		out = append(out, strings.Fields(strings.NewReplacer("[[", "[", "]]", "]").Replace(rest)))
	}
	return out
}

// commandNames is the first word of every usage line, in usage order.
func commandNames() []string {
	var out []string
	for _, l := range usageLines() {
		if len(l) > 0 && !strings.HasPrefix(l[0], "-") {
			out = append(out, l[0])
		}
	}
	return dedupe(out)
}

func dedupe(list []string) []string {
	var out []string
	for _, s := range list {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// completeMain prints the candidates for words, one a line. Errors (no
// settings, no sessions) leave the dynamic candidates out: completion
// never prints an error into someone's command line.
func completeMain(words []string, src completionSource) int {
	for _, c := range complete(words, src) {
		fmt.Println(c)
	}
	return 0
}
