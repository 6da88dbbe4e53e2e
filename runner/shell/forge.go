package shell

import (
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v4"
)

// Clients other than git that rewrite or delete a remote repository's
// history, which git's own rules (git.go) do not see: hub, a wrapper that
// runs git (and deletes repositories, and sends API requests as gh api
// does); and the forges' command-line
// clients, gh and glab: repo delete, and
// their api command where its request deletes something, changes a ref,
// or is a GraphQL mutation that deletes or moves refs or repositories;
// gh repo sync --force and a release deleted with its tag.
// curl and other HTTP clients are not read: against them stands nothing
// but network = false.

// forgeMutation matches the GraphQL mutations that delete or move refs or
// delete a repository (GitHub's names; GitLab's have the same words).
var forgeMutation = regexp.MustCompile(`(?i)delete_?ref|update_?refs?\b|delete_?repositor|delete_?branch|branch_?delete|project_?delete|destroy`)

// forge checks hub, gh and glab. The version control clients (jj git
// push, sl push --force, hg push --force) are in vcs.go.
func (c *checker) forge(name string, rest []field) {
	switch name {
	case "hub":
		if ops := operands(rest); len(ops) > 0 && ops[0].text == "delete" {
			c.flag(ReasonRemoteHistory)
			return
		}
		if i := hubCommand(rest); i < len(rest) && rest[i].text == "api" {
			c.forgeCLI(rest[i:], "XfFH") // hub api: gh's request options; its -t takes no argument
			return
		}
		c.git(rest)
	case "gh", "glab":
		if ops := operands(rest); len(ops) > 0 && ops[0].known() && !forgeCommands[name][ops[0].text] {
			c.forgeUserAlias(name, ops[0].text, restAfter(rest, ops[0]))
			return
		}
		c.forgeCLI(rest, "XfFHpqt")
	}
}

// forgeCommands are gh's and glab's own top-level commands (and help
// topics); any other name is an alias from the client's configuration or
// an extension (gh-NAME).
var forgeCommands = map[string]map[string]bool{
	"gh": wordSet(`accessibility actions agent-task alias api attestation auth browse cache co codespace cs
		completion config copilot credits environment ext extension extensions exit-codes formatting gist
		gpg-key help issue label licenses mintty org pr preview project release repo reference rs ruleset
		run search secret ssh-key status variable version workflow`),
	"glab": wordSet(`alias api attestation auth changelog check-update ci cluster completion config deploy-key
		deploy-keys duo gpg-key help incident issue iteration job label milestone mr opentofu release repo
		runner schedule securefile snippet ssh-key stack token update user variable version`),
}

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// restAfter is what follows word w in rest.
func restAfter(rest []field, w field) []field {
	for i := range rest {
		if rest[i] == w {
			return rest[i+1:]
		}
	}
	return nil
}

// forgeUserAlias checks gh NAME or glab NAME that is not one of the
// client's commands: an alias from its configuration (gh's config.yml
// "aliases", glab's aliases.yml, in GH_CONFIG_DIR or GLAB_CONFIG_DIR,
// else $XDG_CONFIG_HOME or ~/.config) is checked as alias set checks it,
// with the call's arguments after it; an extension or a configuration
// that cannot be read asks.
func (c *checker) forgeUserAlias(client, name string, args []field) {
	home, okHome := c.vars["HOME"]
	dir, file := c.env("GH_CONFIG_DIR"), "config.yml"
	if client == "glab" {
		dir, file = c.env("GLAB_CONFIG_DIR"), "aliases.yml"
	}
	if dir == "" {
		xdg, ok := c.vars["XDG_CONFIG_HOME"]
		if !ok && !okHome {
			c.flag(ReasonOpaque)
			return
		}
		if !ok {
			xdg = filepath.Join(home, ".config")
		}
		dir = filepath.Join(xdg, map[string]string{"gh": "gh", "glab": "glab-cli"}[client])
	}
	r := &vcsReader{c: c}
	b, ok := r.read(filepath.Join(dir, file))
	var doc map[string]any
	if !ok || b == nil || yaml.Unmarshal(b, &doc) != nil {
		c.flag(ReasonOpaque) // unreadable, or no alias: an extension runs
		return
	}
	aliases := doc
	if client == "gh" {
		aliases, _ = doc["aliases"].(map[string]any)
	}
	exp, ok := aliases[name].(string)
	if !ok {
		c.flag(ReasonOpaque) // an extension (gh-NAME), or no such command
		return
	}
	if strings.HasPrefix(exp, "!") {
		c.nested(exp[1:], nil, false) // its arguments: "$1"...
		return
	}
	words, ok := splitGitWords(forgeAliasArg.ReplaceAllString(exp, unk))
	if !ok {
		c.flag(ReasonOpaque)
		return
	}
	c.nest(func() { c.forgeCLI(append(words, args...), "XfFHpqt") })
}

// hubCommand is the index of hub's command word: past git's global
// options, -C and -c with their argument.
func hubCommand(args []field) int {
	i := 0
	for i < len(args) && isOption(args[i]) {
		if args[i].text == "-C" || args[i].text == "-c" {
			i++
		}
		i++
	}
	return i
}

// hasWord reports whether a known argument is exactly w.
func hasWord(args []field, w string) bool {
	for _, a := range args {
		if a.text == w {
			return true
		}
	}
	return false
}

// hasPrefixWord reports whether a known argument starts with p.
func hasPrefixWord(args []field, p string) bool {
	for _, a := range args {
		if strings.HasPrefix(a.text, p) {
			return true
		}
	}
	return false
}

// forgeCLI checks gh and glab (and hub api): repo delete; api with its
// method (-X, --method; POST when fields are given, else GET), endpoint
// and fields. withArg are the short options that take an argument.
func (c *checker) forgeCLI(rest []field, withArg string) {
	ops := operands(rest)
	if len(ops) >= 2 && ops[0].text == "repo" && (ops[1].text == "delete" || !ops[1].known()) {
		c.flag(ReasonRemoteHistory)
		return
	}
	if len(ops) >= 2 && ops[0].text == "alias" {
		c.forgeAlias(ops[1:], rest)
		return
	}
	// gh repo sync --force resets the remote branch to the source's; gh
	// release delete --cleanup-tag (glab's --with-tag, -t) deletes the tag.
	if len(ops) >= 2 && (ops[0].text == "repo" && ops[1].text == "sync" && (hasWord(rest, "--force") || hasPrefixWord(rest, "--force=")) ||
		ops[0].text == "release" && ops[1].text == "delete" && (hasWord(rest, "--cleanup-tag") || hasWord(rest, "--with-tag") || hasWord(rest, "-t") || hasPrefixWord(rest, "--cleanup-tag=") || hasPrefixWord(rest, "--with-tag="))) {
		c.flag(ReasonRemoteHistory)
		return
	}
	// These run git, which writes a repository's metadata: a new clone's
	// (whose .git the sandbox would otherwise move aside as made by a
	// confined command) or the workspace's.
	if len(ops) >= 2 && (ops[0].text == "repo" && (ops[1].text == "clone" || ops[1].text == "fork") ||
		ops[0].text == "pr" && (ops[1].text == "checkout" || ops[1].text == "co")) {
		c.gitWrite("clone", nil)
	}
	if len(ops) == 0 || ops[0].text != "api" {
		if len(ops) > 0 && !ops[0].known() {
			c.flag(ReasonOpaque)
		}
		return
	}
	method, fields, endpoint := "", false, field{}
	var texts []field
	args := rest[slicesIndexText(rest, "api")+1:]
	words, wordAt := 0, false // operands, and one whose start is unknown
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		k, v, eq := strings.Cut(t, "=")
		switch {
		case !a.known() && (a.split || strings.HasPrefix(t, "-")):
			c.flag(ReasonRemoteHistory) // may be -X DELETE
			return
		case !isOption(a):
			words++
			wordAt = wordAt || strings.HasPrefix(t, unk)
			if endpoint.text == "" {
				endpoint = a
			}
		case k == "--method":
			if eq {
				method = v
			} else {
				method = nextArg(args, &i).text
			}
		case k == "--input":
			// The request body, read from a file or stdin: not seen.
			fields = true
			if !eq {
				nextArg(args, &i)
			}
			texts = append(texts, unknown)
		case k == "--field" || k == "--raw-field" || k == "--form":
			fields = true
			if eq {
				texts = append(texts, lit(v))
			} else {
				texts = append(texts, nextArg(args, &i))
			}
		case t[1] != '-':
			// A cluster of short options (pflag's): those of withArg (-X,
			// -f, -F, -H, and gh's -p, -q, -t) take the rest of the word
			// (after an =) or the next word; -i and the others take none.
			for j := 1; j < len(t); j++ {
				if strings.IndexByte(withArg, t[j]) < 0 {
					continue
				}
				val := lit(strings.TrimPrefix(t[j+1:], "="))
				if j+1 == len(t) {
					val = nextArg(args, &i)
				}
				switch t[j] {
				case 'X':
					method = val.text
				case 'f', 'F':
					fields = true
					texts = append(texts, val)
				}
				break
			}
		}
	}
	// "$E" holds one word, which may be an option (-XDELETE) when another
	// word is the endpoint.
	if wordAt && words > 1 {
		c.flag(ReasonRemoteHistory)
		return
	}
	if method == "" && fields {
		method = "POST"
	}
	method = strings.ToUpper(method)
	if strings.Contains(method, unk) || !endpoint.known() && method != "" && method != "GET" {
		c.flag(ReasonRemoteHistory)
		return
	}
	if strings.Trim(endpoint.text, "/") == "graphql" {
		for _, f := range texts {
			// a field read from a file (-F query=@q.graphql) or a variable
			// is not known; its mutation may be anything.
			if !f.known() || strings.Contains(f.text, "=@") || forgeMutation.MatchString(f.text) {
				c.flag(ReasonRemoteHistory)
				return
			}
		}
		return
	}
	switch method {
	case "DELETE":
		c.flag(ReasonRemoteHistory)
	case "PATCH", "PUT", "POST":
		e := strings.ToLower(endpoint.text)
		if strings.Contains(e, "git/refs") || strings.Contains(e, "/branches") ||
			strings.Contains(e, "/commits") && forgeForces(texts) {
			c.flag(ReasonRemoteHistory)
		}
	}
}

// forgeForces reports whether a request's fields may ask to overwrite a
// branch (GitLab's create-commit force=true resets the branch to the new
// commit): a force field that is not false, or a field or body not seen.
func forgeForces(texts []field) bool {
	for _, f := range texts {
		if !f.known() {
			return true
		}
		k, v, _ := strings.Cut(f.text, "=")
		if strings.EqualFold(strings.TrimSpace(k), "force") && !gitFalse(strings.TrimSpace(v)) {
			return true
		}
	}
	return false
}

// slicesIndexText is the index of the first known argument exactly s.
func slicesIndexText(args []field, s string) int {
	for i, a := range args {
		if a.text == s {
			return i
		}
	}
	return -1
}

// forgeAliasArg is a placeholder of a gh or glab alias ($1...), which
// takes an argument of the alias's call.
var forgeAliasArg = regexp.MustCompile(`\$[0-9]+`)

// forgeAlias checks gh/glab alias set NAME EXPANSION, which saves a
// command that a later "gh NAME" runs, when it is saved: a shell alias
// (--shell, -s or a leading !) as a shell command, another as the gh
// command it expands to, its placeholders ($1...) unknown. An expansion read from
// stdin and alias import (from a file) ask.
func (c *checker) forgeAlias(ops, rest []field) {
	switch ops[0].text {
	case "set":
	case "import":
		c.flag(ReasonOpaque)
		return
	default:
		if !ops[0].known() {
			c.flag(ReasonOpaque)
		}
		return
	}
	if len(ops) < 3 {
		return
	}
	exp := ops[2]
	if !exp.known() || exp.text == "-" {
		c.flag(ReasonOpaque)
		return
	}
	if hasWord(rest, "--shell") || hasWord(rest, "-s") || strings.HasPrefix(exp.text, "!") {
		c.nested(strings.TrimPrefix(exp.text, "!"), nil, false) // its arguments: "$1"...
		return
	}
	words, ok := splitGitWords(forgeAliasArg.ReplaceAllString(exp.text, unk))
	if !ok {
		c.flag(ReasonOpaque)
		return
	}
	c.nest(func() { c.forgeCLI(words, "XfFHpqt") })
}
