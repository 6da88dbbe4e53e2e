package shell

import (
	"regexp"
	"strings"
)

// Clients other than git that rewrite or delete a remote repository's
// history, which git's own rules (git.go) do not see: hub, a wrapper that
// runs git (and deletes repositories); jj git push, which moves remote
// bookmarks wherever the local ones were rewritten to, and deletes the ones
// deleted locally (it never asks for a force); Sapling's sl push --force;
// and the forges' command-line clients, gh and glab: repo delete, and
// their api command where its request deletes something, changes a ref,
// or is a GraphQL mutation that deletes or moves refs or repositories;
// gh repo sync --force and a release deleted with its tag.
// curl and other HTTP clients are not read: against them stands nothing
// but network = false.

// forgeMutation matches the GraphQL mutations that delete or move refs or
// delete a repository (GitHub's names; GitLab's have the same words).
var forgeMutation = regexp.MustCompile(`(?i)delete_?ref|update_?refs?\b|delete_?repositor|delete_?branch|branch_?delete|project_?delete|destroy`)

// forge checks hub, jj, sl, gh and glab.
func (c *checker) forge(name string, rest []field) {
	switch name {
	case "hub":
		if ops := operands(rest); len(ops) > 0 && ops[0].text == "delete" {
			c.flag(ReasonRemoteHistory)
			return
		}
		c.git(rest)
	case "jj":
		// jj's aliases (from configuration the repository may hold) are
		// not read: a limit, like curl's requests.
		ops := jjOperands(rest)
		if len(ops) == 0 {
			return
		}
		if !ops[0].known() {
			c.flag(ReasonOpaque)
			return
		}
		if ops[0].text == "git" && len(ops) > 1 && (!ops[1].known() || ops[1].text == "push") && !hasWord(rest, "--dry-run") {
			c.flag(ReasonRemoteHistory)
		}
	case "sl":
		if ops := operands(rest); len(ops) > 0 && ops[0].text == "push" {
			for _, a := range rest {
				if a.text == "--delete" || strings.HasPrefix(a.text, "--delete=") || longOpt(a.text, "--force", 3) || shortFlag(a, 'f') || !a.known() {
					c.flag(ReasonRemoteHistory)
					return
				}
			}
		}
	case "gh", "glab":
		c.forgeCLI(rest)
	}
}

// jjOperands drops jj's options (any place: jj accepts them after the
// subcommand too) and their values, keeping the words of the command.
func jjOperands(args []field) []field {
	var out []field
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		switch {
		case t == "--":
			return append(out, args[i+1:]...)
		case !isOption(a):
			out = append(out, a)
		case t == "-R" || t == "--repository" || t == "--at-op" || t == "--at-operation" || t == "--config" ||
			t == "--config-toml" || t == "--config-file" || t == "--color" || t == "-r" || t == "-b" || t == "--bookmark" ||
			t == "--branch" || t == "--remote" || t == "--change" || t == "-c" || t == "--revisions" || t == "--named":
			i++ // its value
		}
	}
	return out
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

// forgeCLI checks gh and glab: repo delete; api with its method (-X,
// --method; POST when fields are given, else GET), endpoint and fields.
func (c *checker) forgeCLI(rest []field) {
	ops := operands(rest)
	if len(ops) >= 2 && ops[0].text == "repo" && (ops[1].text == "delete" || !ops[1].known()) {
		c.flag(ReasonRemoteHistory)
		return
	}
	// gh repo sync --force resets the remote branch to the source's; gh
	// release delete --cleanup-tag (glab's --with-tag, -t) deletes the tag.
	if len(ops) >= 2 && (ops[0].text == "repo" && ops[1].text == "sync" && (hasWord(rest, "--force") || hasPrefixWord(rest, "--force=")) ||
		ops[0].text == "release" && ops[1].text == "delete" && (hasWord(rest, "--cleanup-tag") || hasWord(rest, "--with-tag") || hasWord(rest, "-t") || hasPrefixWord(rest, "--cleanup-tag=") || hasPrefixWord(rest, "--with-tag="))) {
		c.flag(ReasonRemoteHistory)
		return
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
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		k, v, eq := strings.Cut(t, "=")
		switch {
		case !isOption(a):
			if endpoint.text == "" {
				endpoint = a
			}
		case k == "-X" || k == "--method":
			if eq {
				method = v
			} else {
				method = nextArg(args, &i).text
			}
		case strings.HasPrefix(t, "-X"):
			method = t[2:]
		case k == "-f" || k == "-F" || k == "--field" || k == "--raw-field" || k == "--input" || k == "--form":
			fields = true
			if eq && strings.HasPrefix(k, "--") {
				texts = append(texts, lit(v))
			} else {
				texts = append(texts, nextArg(args, &i))
			}
		case strings.HasPrefix(t, "-f") || strings.HasPrefix(t, "-F"):
			fields = true
			texts = append(texts, lit(t[2:]))
		}
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
		if e := strings.ToLower(endpoint.text); strings.Contains(e, "git/refs") || strings.Contains(e, "/branches") {
			c.flag(ReasonRemoteHistory)
		}
	}
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
