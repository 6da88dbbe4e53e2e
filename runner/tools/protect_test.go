package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/internal/ostest"
)

// protectTree builds, under a temporary root:
//
//	work/            the session cwd, a git checkout with secrets and links
//	outside/         a sibling directory
//	home/.ssh, home/.aws/credentials
//	mchome/          the storage root (auth.json, settings.toml)
//
// and returns root.
func protectTree(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"work/a.txt":                         "alpha\n",
		"work/.git/config":                   "[core]\n",
		"work/.git/HEAD":                     "ref: refs/heads/main\n",
		"work/sub/.git":                      "gitdir: ../.git/worktrees/sub\n",
		"work/sub/b.txt":                     "bee\n",
		"work/.env":                          "SECRET=hunter2\n",
		"work/.env.local":                    "SECRET=local\n",
		"work/.env.example":                  "SECRET=changeme\n",
		"work/.gitignore":                    "bin/\n",
		"work/.github/workflows/ci.yml":      "on: push\n",
		"work/keys/server.pem":               "-----BEGIN PRIVATE KEY-----\n",
		"work/keys.go":                       "package keys // SECRET handling\n",
		"work/credentials.go":                "package creds\n",
		"work/.magi-code/settings.toml":      "[tools]\napproval = \"ask\"\n",
		"work/.magi-code/skills/x/SKILL.md":  "# x\n",
		"work/.claude/skills/c/SKILL.md":     "# c\n",
		"work/CLAUDE.md":                     "# notes\n",
		"work/id_rsa.pub":                    "ssh-ed25519 AAAA\n",
		"work/.hg/hgrc":                      "[paths]\n",
		"work/sub/.jj/repo/config.toml":      "[user]\n",
		"work/.sl/config":                    "[paths]\n",
		"work/.hgignore":                     "bin/\n",
		"work/fixtures/origin.git/HEAD":      "ref: refs/heads/main\n",
		"work/fixtures/origin.git/refs/x":    "",
		"work/fixtures/origin.git/objects/x": "",
		"work/fixtures/notbare/HEAD":         "not a ref\n",
		"work/fixtures/notbare/refs/x":       "",
		"work/fixtures/notbare/objects/x":    "",
		"work/fixtures/half/refs/x":          "",
		"work/fixtures/half/objects/x":       "",
		"work/fixtures/nohead/HEAD":          "ref: refs/heads/main\n",
		"work/fixtures/nohead/objects/x":     "",
		"work/fixtures/objonly/objects/x":    "",
		"outside/target.txt":                 "outside\n",
		"home/.ssh/id_rsa":                   "-----BEGIN OPENSSH PRIVATE KEY-----\n",
		"home/.ssh/authorized_keys":          "ssh-ed25519 AAAA\n",
		"home/.aws/credentials":              "[default]\naws_secret_access_key=SECRET\n",
		"mchome/auth.json":                   `{"openai":{"key":"SECRET"}}`,
		"mchome/settings.toml":               "provider = \"fixture\"\n",
	}
	links := map[string]string{
		"work/escape":  "../outside",             // a directory link out of cwd
		"work/dangle":  "../outside/created.txt", // dangling: writing creates its target
		"work/abslink": filepath.Join(root, "outside", "target.txt"),
		"work/gitlink": ".git",
		"work/envlink": ".env",
		"work/inner":   "sub", // stays inside cwd
		"work/sshlink": filepath.Join(root, "home", ".ssh"),
		"work/loop":    "loop",
		"work/mclink":  ".magi-code",
		"work/mcfile":  ".magi-code/settings.toml",
		"work/cllink":  ".claude",
		"work/clfile":  ".claude/skills/c/SKILL.md",
		"work/clup":    "sub/../.claude", // a link whose target climbs with ..
		"work/hglink":  ".hg",
		"work/jjfile":  "sub/.jj/repo/config.toml",
		"work/fossil":  ".fslckout", // dangling: writing creates Fossil's checkout database
	}
	writeTree(t, root, files, links)
	return root
}

// snapshot records every regular file under root, to check that a refused
// call changed nothing.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files[p] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestWriteProtections(t *testing.T) {
	const (
		outside = RefusedOutsideCwd
		git     = RefusedGitInternals
		cred    = RefusedCredentialWrite
		mc      = RefusedProjectConfig
	)
	tests := []struct {
		name   string
		tool   string
		path   string // ROOT/ is replaced by the tree's root
		allow  func(*Options)
		refuse string // "" when the call must succeed
		wrote  string // when it succeeds: the file (ROOT/...) that now holds "new"
	}{
		// Outside cwd, lexically and through links.
		{name: "parent path", tool: "write_file", path: "../outside/target.txt", refuse: outside},
		{name: "absolute outside", tool: "write_file", path: "ROOT/outside/new.txt", refuse: outside},
		{name: "dot-dot after subdir", tool: "write_file", path: "sub/../../outside/new.txt", refuse: outside},
		{name: "through dir symlink", tool: "write_file", path: "escape/target.txt", refuse: outside},
		{name: "new file through dir symlink", tool: "write_file", path: "escape/new.txt", refuse: outside},
		{name: "dangling symlink", tool: "write_file", path: "dangle", refuse: outside},
		{name: "absolute symlink", tool: "write_file", path: "abslink", refuse: outside},
		{name: "dot-dot after symlink", tool: "write_file", path: "escape/../a.txt", refuse: outside},
		{name: "edit outside", tool: "edit_file", path: "../outside/target.txt", refuse: outside},
		{name: "edit through symlink", tool: "edit_file", path: "abslink", refuse: outside},
		{name: "allowed outside", tool: "write_file", path: "escape/target.txt", allow: func(o *Options) { o.AllowOutsideCwd = true }, wrote: "ROOT/outside/target.txt"},
		// .git internals.
		{name: "git config", tool: "write_file", path: ".git/config", refuse: git},
		{name: "git hook", tool: "write_file", path: ".git/hooks/pre-commit", refuse: git},
		{name: "git upper case", tool: "write_file", path: ".GIT/config", refuse: git},
		{name: "worktree git file", tool: "write_file", path: "sub/.git", refuse: git},
		{name: "git through symlink", tool: "write_file", path: "gitlink/config", refuse: git},
		{name: "git absolute", tool: "write_file", path: "ROOT/work/.git/HEAD", refuse: git},
		{name: "edit git config", tool: "edit_file", path: ".git/config", refuse: git},
		// Other version control systems' metadata: Mercurial's hooks,
		// jj's configuration, Sapling's, and the rest of the list.
		{name: "hg hgrc", tool: "write_file", path: ".hg/hgrc", refuse: git},
		{name: "new hg hook file", tool: "write_file", path: ".hg/hgrc.d/x.rc", refuse: git},
		{name: "edit hg hgrc", tool: "edit_file", path: ".hg/hgrc", refuse: git},
		{name: "hg upper case", tool: "write_file", path: ".HG/hgrc", refuse: git},
		{name: "hg via dir symlink", tool: "write_file", path: "hglink/hgrc", refuse: git},
		{name: "hg via dot-dot", tool: "write_file", path: "sub/../.hg/hgrc", refuse: git},
		{name: "hg dot-dot after symlink", tool: "write_file", path: "inner/../.hg/hgrc", refuse: git},
		{name: "hg absolute", tool: "write_file", path: "ROOT/work/.hg/hgrc", refuse: git},
		{name: "jj repo config", tool: "write_file", path: "sub/.jj/repo/config.toml", refuse: git},
		{name: "edit jj repo config", tool: "edit_file", path: "sub/.jj/repo/config.toml", refuse: git},
		{name: "jj via file symlink", tool: "edit_file", path: "jjfile", refuse: git},
		{name: "jj via inner link", tool: "write_file", path: "inner/.jj/repo/config.toml", refuse: git},
		{name: "new jj at the top", tool: "write_file", path: ".jj/repo/config.toml", refuse: git},
		{name: "sapling config", tool: "write_file", path: ".sl/config", refuse: git},
		{name: "pijul config", tool: "write_file", path: "p/.pijul/config", refuse: git},
		{name: "darcs defaults", tool: "write_file", path: "_darcs/prefs/defaults", refuse: git},
		{name: "bazaar branch conf", tool: "write_file", path: ".bzr/branch/branch.conf", refuse: git},
		{name: "fossil checkout", tool: "write_file", path: ".fslckout", refuse: git},
		{name: "fossil checkout via dangling link", tool: "write_file", path: "fossil", refuse: git},
		{name: "fossil checkout on windows", tool: "write_file", path: "sub/_FOSSIL_", refuse: git},
		{name: "bare repository hook", tool: "write_file", path: "fixtures/origin.git/hooks/post-receive", refuse: git},
		{name: "bare repository config", tool: "write_file", path: "fixtures/origin.git/config", refuse: git},
		{name: "edit bare repository HEAD", tool: "edit_file", path: "fixtures/origin.git/HEAD", refuse: git},
		{name: "bare repository via dot-dot", tool: "write_file", path: "fixtures/notbare/../origin.git/hooks/update", refuse: git},
		{name: "bare look-alike", tool: "write_file", path: "fixtures/notbare/hooks/x", wrote: "ROOT/work/fixtures/notbare/hooks/x"},
		// A write that would make a directory a bare repository: git run
		// there would take it for one and run its config.
		{name: "a HEAD beside objects and refs", tool: "write_file", path: "fixtures/half/HEAD", refuse: git},
		{name: "a head beside objects and refs", tool: "write_file", path: "fixtures/half/head", refuse: git},
		{name: "the refs beside HEAD and objects", tool: "write_file", path: "fixtures/nohead/refs/heads/main", refuse: git},
		{name: "the REFS beside HEAD and objects", tool: "write_file", path: "fixtures/nohead/REFS/heads/main", refuse: git},
		{name: "a HEAD beside objects alone", tool: "write_file", path: "fixtures/objonly/HEAD", wrote: "ROOT/work/fixtures/objonly/HEAD"},
		{name: "allowed hg", tool: "write_file", path: ".hg/hgrc", allow: func(o *Options) { o.AllowGitInternals = true }, wrote: "ROOT/work/.hg/hgrc"},
		{name: "hgignore is a project file", tool: "write_file", path: ".hgignore", wrote: "ROOT/work/.hgignore"},
		{name: "hg look-alike", tool: "write_file", path: "x.hg/y", wrote: "ROOT/work/x.hg/y"},
		{name: "jj without dot", tool: "write_file", path: "jj/config.toml", wrote: "ROOT/work/jj/config.toml"},
		{name: "allowed git", tool: "write_file", path: ".git/config", allow: func(o *Options) { o.AllowGitInternals = true }, wrote: "ROOT/work/.git/config"},
		// Project settings, skills and agent profiles.
		{name: "project settings", tool: "write_file", path: ".magi-code/settings.toml", refuse: mc},
		{name: "project skill", tool: "write_file", path: ".magi-code/skills/x/SKILL.md", refuse: mc},
		{name: "new project skill", tool: "write_file", path: ".magi-code/skills/y/SKILL.md", refuse: mc},
		{name: "project agent", tool: "write_file", path: ".magi-code/agents/a.md", refuse: mc},
		{name: "new project config dir", tool: "write_file", path: "sub/.magi-code/settings.toml", refuse: mc},
		{name: "project config upper case", tool: "write_file", path: ".MAGI-CODE/settings.toml", refuse: mc},
		{name: "project config via dir symlink", tool: "write_file", path: "mclink/settings.toml", refuse: mc},
		{name: "project config via file symlink", tool: "write_file", path: "mcfile", refuse: mc},
		{name: "project config via dot-dot", tool: "write_file", path: "sub/../.magi-code/settings.toml", refuse: mc},
		{name: "project config absolute", tool: "write_file", path: "ROOT/work/.magi-code/agents/a.md", refuse: mc},
		{name: "edit project settings", tool: "edit_file", path: ".magi-code/settings.toml", refuse: mc},
		{name: "edit project skill via symlink", tool: "edit_file", path: "mclink/skills/x/SKILL.md", refuse: mc},
		{name: "allowed project config", tool: "write_file", path: ".magi-code/settings.toml", allow: func(o *Options) { o.AllowProjectConfig = true }, wrote: "ROOT/work/.magi-code/settings.toml"},
		{name: "project config look-alike file", tool: "write_file", path: ".magi-code-notes.txt", wrote: "ROOT/work/.magi-code-notes.txt"},
		{name: "project config look-alike doc", tool: "write_file", path: "docs/.magi-code.md", wrote: "ROOT/work/docs/.magi-code.md"},
		{name: "project config without dot", tool: "write_file", path: "magi-code/settings.toml", wrote: "ROOT/work/magi-code/settings.toml"},
		// Claude Code's project directory: skills magi-code loads, and the
		// settings (hooks), agents and commands Claude Code loads.
		{name: "claude skill", tool: "write_file", path: ".claude/skills/c/SKILL.md", refuse: mc},
		{name: "new claude skill", tool: "write_file", path: ".claude/skills/d/SKILL.md", refuse: mc},
		{name: "claude agent", tool: "write_file", path: ".claude/agents/a.md", refuse: mc},
		{name: "claude settings", tool: "write_file", path: ".claude/settings.json", refuse: mc},
		{name: "claude local settings", tool: "write_file", path: ".claude/settings.local.json", refuse: mc},
		{name: "claude in subdir", tool: "write_file", path: "sub/.claude/skills/e/SKILL.md", refuse: mc},
		{name: "claude upper case", tool: "write_file", path: ".Claude/skills/c/SKILL.md", refuse: mc},
		{name: "claude via dir symlink", tool: "write_file", path: "cllink/skills/c/SKILL.md", refuse: mc},
		{name: "claude via file symlink", tool: "write_file", path: "clfile", refuse: mc},
		{name: "claude via symlink with dot-dot", tool: "write_file", path: "clup/settings.json", refuse: mc},
		{name: "claude via dot-dot", tool: "write_file", path: "sub/../.claude/skills/c/SKILL.md", refuse: mc},
		{name: "claude dot-dot after symlink", tool: "write_file", path: "inner/../.claude/agents/a.md", refuse: mc},
		{name: "claude absolute", tool: "write_file", path: "ROOT/work/.claude/skills/c/SKILL.md", refuse: mc},
		{name: "edit claude skill", tool: "edit_file", path: ".claude/skills/c/SKILL.md", refuse: mc},
		{name: "edit claude skill via symlink", tool: "edit_file", path: "cllink/skills/c/SKILL.md", refuse: mc},
		{name: "global claude skill with outside writes allowed", tool: "write_file", path: "ROOT/home/.claude/skills/g/SKILL.md", allow: func(o *Options) { o.AllowOutsideCwd = true }, refuse: mc},
		{name: "allowed claude skill", tool: "write_file", path: ".claude/skills/c/SKILL.md", allow: func(o *Options) { o.AllowProjectConfig = true }, wrote: "ROOT/work/.claude/skills/c/SKILL.md"},
		{name: "claude look-alike dir", tool: "write_file", path: ".claudex/skills/c/SKILL.md", wrote: "ROOT/work/.claudex/skills/c/SKILL.md"},
		{name: "claude look-alike file", tool: "write_file", path: ".claude.yaml", wrote: "ROOT/work/.claude.yaml"},
		{name: "claude state is a credential file", tool: "write_file", path: ".claude.json", refuse: RefusedCredentialWrite},
		{name: "claude look-alike prefix", tool: "write_file", path: "x.claude/skills/c/SKILL.md", wrote: "ROOT/work/x.claude/skills/c/SKILL.md"},
		{name: "claude without dot", tool: "write_file", path: "claude/skills/c/SKILL.md", wrote: "ROOT/work/claude/skills/c/SKILL.md"},
		{name: "CLAUDE.md is a project file", tool: "write_file", path: "CLAUDE.md", wrote: "ROOT/work/CLAUDE.md"},
		{name: "edit CLAUDE.md", tool: "edit_file", path: "CLAUDE.md", wrote: "ROOT/work/CLAUDE.md"},
		{name: "AGENTS.md is a project file", tool: "write_file", path: "AGENTS.md", wrote: "ROOT/work/AGENTS.md"},
		// Credentials.
		{name: "env", tool: "write_file", path: ".env", refuse: cred},
		{name: "env local", tool: "write_file", path: ".env.local", refuse: cred},
		{name: "env through symlink", tool: "write_file", path: "envlink", refuse: cred},
		{name: "pem", tool: "write_file", path: "keys/server.pem", refuse: cred},
		{name: "new key", tool: "write_file", path: "tls/new.key", refuse: cred},
		{name: "netrc", tool: "write_file", path: ".netrc", refuse: cred},
		{name: "npmrc", tool: "write_file", path: "web/.npmrc", refuse: cred},
		{name: "auth json", tool: "write_file", path: "auth.json", refuse: cred},
		{name: "git credentials", tool: "write_file", path: ".git-credentials", refuse: cred},
		{name: "authorized keys", tool: "write_file", path: "ROOT/home/.ssh/authorized_keys", refuse: cred},
		{name: "ssh via symlink", tool: "write_file", path: "sshlink/id_rsa", refuse: cred},
		{name: "aws credentials", tool: "write_file", path: "ROOT/home/.aws/credentials", refuse: cred},
		{name: "mc home settings", tool: "write_file", path: "ROOT/mchome/settings.toml", refuse: cred},
		{name: "edit env", tool: "edit_file", path: ".env", refuse: cred},
		{name: "allowed env", tool: "write_file", path: ".env", allow: func(o *Options) { o.AllowCredentialFiles = true }, wrote: "ROOT/work/.env"},
		// Errors, not refusals.
		{name: "symlink loop", tool: "write_file", path: "loop/x", refuse: "write_file: too many symbolic links"},
		// Look-alikes that must pass.
		{name: "plain", tool: "write_file", path: "a.txt", wrote: "ROOT/work/a.txt"},
		{name: "absolute inside", tool: "write_file", path: "ROOT/work/sub/b.txt", wrote: "ROOT/work/sub/b.txt"},
		{name: "gitignore", tool: "write_file", path: ".gitignore", wrote: "ROOT/work/.gitignore"},
		{name: "github workflow", tool: "write_file", path: ".github/workflows/ci.yml", wrote: "ROOT/work/.github/workflows/ci.yml"},
		{name: "git in a name", tool: "write_file", path: "my.git.txt", wrote: "ROOT/work/my.git.txt"},
		{name: "git dir without dot", tool: "write_file", path: "git/objects.txt", wrote: "ROOT/work/git/objects.txt"},
		{name: "env example", tool: "write_file", path: ".env.example", wrote: "ROOT/work/.env.example"},
		{name: "env template", tool: "write_file", path: "conf/.env.template", wrote: "ROOT/work/conf/.env.template"},
		{name: "env in a name", tool: "write_file", path: "env.txt", wrote: "ROOT/work/env.txt"},
		{name: "credentials go", tool: "write_file", path: "credentials.go", wrote: "ROOT/work/credentials.go"},
		{name: "keys go", tool: "write_file", path: "keys.go", wrote: "ROOT/work/keys.go"},
		{name: "public key", tool: "write_file", path: "id_rsa.pub", wrote: "ROOT/work/id_rsa.pub"},
		{name: "symlink inside cwd", tool: "write_file", path: "inner/new.txt", wrote: "ROOT/work/sub/new.txt"},
		{name: "dot-dot back inside", tool: "write_file", path: "newdir/../c.txt", wrote: "ROOT/work/c.txt"},
		{name: "edit gitignore", tool: "edit_file", path: ".gitignore", wrote: "ROOT/work/.gitignore"},
		{name: "edit through inner link", tool: "edit_file", path: "inner/b.txt", wrote: "ROOT/work/sub/b.txt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := protectTree(t)
			opts := Options{Cwd: filepath.Join(root, "work"), MCHome: filepath.Join(root, "mchome")}
			if tc.allow != nil {
				tc.allow(&opts)
			}
			tool, _ := Builtin(opts).Get(tc.tool)
			path := strings.ReplaceAll(tc.path, "ROOT/", root+"/")
			var args []byte
			if tc.tool == "write_file" {
				args, _ = json.Marshal(map[string]string{"path": path, "content": "new"})
			} else {
				// Replace a whole file's first line: every fixture has one.
				old, err := os.ReadFile(filepath.Join(opts.Cwd, path))
				if filepath.IsAbs(path) {
					old, err = os.ReadFile(path)
				}
				if err != nil {
					old = []byte("x")
				}
				args, _ = json.Marshal(map[string]string{"path": path, "old": string(old), "new": "new"})
			}
			before := snapshot(t, root)
			res := tool.Run(context.Background(), args)
			after := snapshot(t, root)
			if tc.refuse != "" {
				wantSummary := tc.tool + ": " + tc.refuse
				if strings.HasPrefix(tc.refuse, tc.tool+": ") {
					wantSummary = tc.refuse
				}
				if !res.IsError || res.Text != tc.refuse || res.Summary != wantSummary {
					t.Errorf("%s(%s) = %+v; want refusal %q", tc.tool, tc.path, res, tc.refuse)
				}
				if len(after) != len(before) {
					t.Errorf("refused call changed the file set: %d files before, %d after", len(before), len(after))
				}
				for p, content := range before {
					if after[p] != content {
						t.Errorf("refused call changed %s", p)
					}
				}
				return
			}
			if res.IsError {
				t.Fatalf("%s(%s) = %+v; want success", tc.tool, tc.path, res)
			}
			wrote := strings.ReplaceAll(tc.wrote, "ROOT/", root+"/")
			if after[wrote] != "new" {
				t.Errorf("%s = %q; want %q", tc.wrote, after[wrote], "new")
			}
			for p, content := range before {
				if p != wrote && after[p] != content {
					t.Errorf("call also changed %s", p)
				}
			}
		})
	}
}

func TestReadProtections(t *testing.T) {
	root := protectTree(t)
	base := Options{Cwd: filepath.Join(root, "work"), MCHome: filepath.Join(root, "mchome")}
	allowed := base
	allowed.AllowCredentialFiles = true
	tests := []struct {
		name     string
		opts     Options
		tool     string
		args     string // ROOT/ is replaced by the tree's root
		wantText string // exact
	}{
		{name: "env", opts: base, tool: "read_file", args: `{"path":".env"}`, wantText: RefusedCredentialRead},
		{name: "env local", opts: base, tool: "read_file", args: `{"path":".env.local"}`, wantText: RefusedCredentialRead},
		{name: "env via symlink", opts: base, tool: "read_file", args: `{"path":"envlink"}`, wantText: RefusedCredentialRead},
		{name: "pem", opts: base, tool: "read_file", args: `{"path":"keys/server.pem"}`, wantText: RefusedCredentialRead},
		{name: "ssh key", opts: base, tool: "read_file", args: `{"path":"ROOT/home/.ssh/id_rsa"}`, wantText: RefusedCredentialRead},
		{name: "ssh key via symlink", opts: base, tool: "read_file", args: `{"path":"sshlink/id_rsa"}`, wantText: RefusedCredentialRead},
		{name: "aws", opts: base, tool: "read_file", args: `{"path":"ROOT/home/.aws/credentials"}`, wantText: RefusedCredentialRead},
		{name: "mc home auth", opts: base, tool: "read_file", args: `{"path":"ROOT/mchome/auth.json"}`, wantText: RefusedCredentialRead},
		{name: "mc home settings", opts: base, tool: "read_file", args: `{"path":"ROOT/mchome/settings.toml"}`, wantText: RefusedCredentialRead},
		{name: "allowed env", opts: allowed, tool: "read_file", args: `{"path":".env"}`, wantText: "SECRET=hunter2\n"},
		// Look-alikes pass; reading outside cwd is refused without an approval.
		{name: "env example", opts: base, tool: "read_file", args: `{"path":".env.example"}`, wantText: "SECRET=changeme\n"},
		{name: "keys go", opts: base, tool: "read_file", args: `{"path":"keys.go"}`, wantText: "package keys // SECRET handling\n"},
		{name: "public key", opts: base, tool: "read_file", args: `{"path":"id_rsa.pub"}`, wantText: "ssh-ed25519 AAAA\n"},
		{name: "git config", opts: base, tool: "read_file", args: `{"path":".git/config"}`, wantText: "[core]\n"},
		{name: "project settings", opts: base, tool: "read_file", args: `{"path":".magi-code/settings.toml"}`, wantText: "[tools]\napproval = \"ask\"\n"},
		{name: "outside", opts: base, tool: "read_file", args: `{"path":"../outside/target.txt"}`, wantText: RefusedOutsideRead},
		{name: "outside via symlink", opts: base, tool: "read_file", args: `{"path":"escape/target.txt"}`, wantText: RefusedOutsideRead},
		// grep skips credential files while walking and refuses one as root.
		{name: "grep walk", opts: base, tool: "grep", args: `{"pattern":"SECRET","path":"."}`, wantText: ".env.example:1:SECRET=changeme\nkeys.go:1:package keys // SECRET handling\n"},
		{name: "grep walk root", opts: base, tool: "grep", args: `{"pattern":"SECRET","path":"ROOT/work"}`, wantText: ".env.example:1:SECRET=changeme\nkeys.go:1:package keys // SECRET handling\n"},
		{name: "grep env", opts: base, tool: "grep", args: `{"pattern":"SECRET","path":".env"}`, wantText: RefusedCredentialRead},
		{name: "grep ssh dir", opts: base, tool: "grep", args: `{"pattern":"KEY","path":"sshlink"}`, wantText: RefusedCredentialRead},
		{name: "grep ssh dir direct", opts: base, tool: "grep", args: `{"pattern":"KEY","path":"ROOT/home/.ssh"}`, wantText: RefusedCredentialRead},
		{name: "grep mc home", opts: base, tool: "grep", args: `{"pattern":"SECRET","path":"ROOT/mchome"}`, wantText: RefusedCredentialRead},
		{name: "grep allowed", opts: allowed, tool: "grep", args: `{"pattern":"hunter2","path":"."}`, wantText: ".env:1:SECRET=hunter2\n"},
		// list_dir refuses a directory of credentials like grep.
		{name: "list ssh", opts: base, tool: "list_dir", args: `{"path":"ROOT/home/.ssh"}`, wantText: RefusedCredentialRead},
		{name: "list ssh via symlink", opts: base, tool: "list_dir", args: `{"path":"sshlink"}`, wantText: RefusedCredentialRead},
		{name: "list mc home", opts: base, tool: "list_dir", args: `{"path":"ROOT/mchome"}`, wantText: RefusedCredentialRead},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tool, _ := Builtin(tc.opts).Get(tc.tool)
			res := tool.Run(context.Background(), json.RawMessage(strings.ReplaceAll(tc.args, "ROOT", root)))
			want := strings.ReplaceAll(tc.wantText, "ROOT", root)
			refusal := strings.HasPrefix(want, "refused: ")
			if res.Text != want || res.IsError != refusal {
				t.Errorf("%s(%s) = %q (error %v); want %q", tc.tool, tc.args, res.Text, res.IsError, want)
			}
			if refusal && res.Summary != tc.tool+": "+want {
				t.Errorf("summary = %q", res.Summary)
			}
		})
	}
}

func TestCredentialPath(t *testing.T) {
	o := Options{MCHome: "/home/u/.magi-code"}
	tests := []struct {
		path string
		want bool
	}{
		{"/w/.env", true},
		{"/w/.ENV", true},
		{"/w/.env.production", true},
		{"/w/.env.example", false},
		{"/w/.env.sample", false},
		{"/w/.env.dist", false},
		{"/w/.envrc", false},
		{"/w/env", false},
		{"/home/u/.ssh/config", true},
		{"/home/u/.ssh/known_hosts", true},
		{"/home/u/.gnupg/pubring.kbx", true},
		{"/home/u/.aws/credentials", true},
		{"/home/u/.aws/config", true},
		{"/home/u/.aws/sso/cache/x.json", true},
		{"/w/aws/config", false},
		{"/home/u/.cargo/credentials", true},
		{"/home/u/.cargo/credentials.toml", true},
		{"/home/u/.cargo/config.toml", false},
		{"/home/u/.config/hub", true},
		{"/w/hub", false},
		{"/w/.config/hub/x", false},
		{"/home/u/.config/gh/config.yml", true},
		{"/home/u/.azure/msal_token_cache.json", true},
		{"/home/u/.azure", false},
		{"/w/azure/x.go", false},
		{"/home/u/.terraform.d/credentials.tfrc.json", true},
		{"/home/u/.terraform.d/plugins/x", false},
		{"/home/u/.config/gcloud/configurations/config_default", true},
		{"/w/gcloud/client.go", false},
		{"/w/config/gcloud/client.go", false},
		{"/home/u/.claude/.credentials.json", true},
		{"/home/u/.m2/settings.xml", true},
		{"/w/settings.xml", false},
		{"/home/u/.local/share/keyrings/login.keyring", true},
		{"/w/local/share/keyrings.go", false},
		{"/home/u/.cache/huggingface/token", true},
		{"/w/token", false},
		{"/home/u/.docker/config.json", true},
		{"/w/config.json", false},
		{"/home/u/.kube/config", true},
		{"/home/u/.config/gh/hosts.yml", true},
		{"/w/hosts.yml", false},
		{"/home/u/.config/gcloud/application_default_credentials.json", true},
		{"/home/u/.pypirc", true},
		{"/home/u/.pgpass", true},
		{"/w/id_ed25519", true},
		{"/w/id_ed25519.pub", false},
		{"/w/tls/cert.pem", true},
		{"/w/tls/cert.crt", false},
		{"/w/store.p12", true},
		{"/w/monkey", false},
		{"/w/credentials_test.go", false},
		{"/home/u/.magi-code", true},
		{"/home/u/.magi-code/sessions/s.jsonl", true},
		{"/home/u/.magi-codex/x", false},
		{"/home/u/.codex/auth.json", true},
	}
	for _, tc := range tests {
		if got := o.credentialPath(tc.path); got != tc.want {
			t.Errorf("credentialPath(%q) = %v; want %v", tc.path, got, tc.want)
		}
	}
}

// TestHomeCredentials: the places the OS sandbox keeps unreadable come
// from the same tables as the file tools' refusals, where they exist:
// every directory of credentialDirs and file of credentialFiles in home,
// every name of credentialNames in home, in a hidden directory of home and
// in a directory of ~/.config; the file tools refuse each of them. Missing
// ones, other files, and directories that are not hidden are not listed.
func TestHomeCredentials(t *testing.T) {
	home := t.TempDir()
	mk := func(rel string, dir bool) string {
		t.Helper()
		p := filepath.Join(home, rel)
		if dir {
			if err := os.MkdirAll(p, 0o700); err != nil {
				t.Fatal(err)
			}
			return p
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var want []string
	for _, d := range credentialDirs {
		want = append(want, mk(filepath.Join(d...), true))
	}
	for _, f := range credentialFiles {
		want = append(want, mk(filepath.Join(f...), false), mk(filepath.Join(append([]string{".cache"}, f...)...), false))
	}
	for n := range credentialNames {
		want = append(want, mk(n, false), mk(filepath.Join(".tool", n), false), mk(filepath.Join(".config", "tool", n), false))
	}
	// Spelled out, so that an emptied table fails too.
	want = append(want, mk(".git-credentials", false), mk(".cargo/credentials.toml", false), mk(".config/git/credentials", false),
		mk(".cache/huggingface/token", false), mk(".ssh", true), mk(".kube/config", false))
	// A hidden directory that is a link (a dotfile manager's): where it
	// leads holds the credentials.
	elsewhere := t.TempDir()
	if err := os.WriteFile(filepath.Join(elsewhere, ".netrc"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(home, ".linked")); err != nil {
		t.Fatal(err)
	}
	want = append(want, filepath.Join(home, ".linked", ".netrc"))
	notWant := []string{mk(".gitconfig", false), mk("work/credentials", false), mk(".tool/config.toml", false),
		mk(".a/b/credentials", false), filepath.Join(home, ".tool", "missing", ".netrc")}
	got := HomeCredentials(home)
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("HomeCredentials lacks %s", w)
		}
	}
	o := Options{}
	for _, p := range got {
		if slices.Contains(notWant, p) {
			t.Errorf("HomeCredentials lists %s", p)
		}
		if !o.credentialRead(p, true) {
			t.Errorf("HomeCredentials lists %s, which the file tools read", p)
		}
	}
	if got := HomeCredentials(filepath.Join(home, "missing")); len(got) != 0 {
		t.Errorf("HomeCredentials of a missing home: %q", got)
	}
}

// TestWriteGitHooks: where core.hooksPath puts git's hooks in the
// workspace (husky: .husky/_, whose scripts run .husky/NAME), write_file
// and edit_file refuse them as version control metadata, by any spelling
// that reaches them (letter case, a link, "..", absolute), as they refuse
// .git/hooks: the person's next commit runs them. AllowGitInternals lifts
// it; look-alikes and a workspace without the setting are written.
func TestWriteGitHooks(t *testing.T) {
	root := ostest.OutsideTemp(t)
	home, ws, plain := filepath.Join(root, "home"), filepath.Join(root, "ws"), filepath.Join(root, "plain")
	for p, content := range map[string]string{
		filepath.Join(ws, ".git", "config"):        "[core]\n\thooksPath = .husky/_\n[include]\n\tpath = ../tools/git.inc\n",
		filepath.Join(ws, "tools", "git.inc"):      "[alias]\n\tst = status\n",
		filepath.Join(ws, ".husky", "pre-commit"):  "npm test\n",
		filepath.Join(ws, ".husky", "_", "h"):      "#!/bin/sh\n",
		filepath.Join(ws, ".husky-old", "x"):       "x\n",
		filepath.Join(ws, "src", "a.go"):           "package a\n",
		filepath.Join(plain, ".git", "config"):     "[core]\n\tbare = false\n",
		filepath.Join(plain, ".husky", "pre-push"): "x\n",
		filepath.Join(home, ".gitconfig"):          "",
		// A nested repository with hooks of its own.
		filepath.Join(ws, "vendor", "lib", ".git", "config"):          "[core]\n\thooksPath = .githooks\n",
		filepath.Join(ws, "vendor", "lib", ".githooks", "pre-commit"): "x\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(ws, ".husky"), filepath.Join(ws, "hk")); err != nil {
		t.Fatal(err)
	}
	// A hooks directory reached through a link: its real place is refused.
	linked := filepath.Join(root, "linked")
	for p, content := range map[string]string{
		filepath.Join(linked, ".git", "config"):                "[core]\n\thooksPath = .hl/_\n",
		filepath.Join(linked, "real-hooks", "_", "pre-commit"): "x\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("real-hooks", filepath.Join(linked, ".hl")); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
	wantWriteTargets(t, env, []writeTargetCase{
		{ws, ".husky/pre-commit", false, RefusedGitInternals},
		{ws, ".husky/_/h", false, RefusedGitInternals},
		{ws, ".husky/_/pre-commit", false, RefusedGitInternals},
		{ws, ".husky/new-hook", false, RefusedGitInternals},
		{ws, ".HUSKY/pre-commit", false, RefusedGitInternals},
		{ws, "hk/pre-commit", false, RefusedGitInternals},
		{ws, "src/../.husky/pre-commit", false, RefusedGitInternals},
		{ws, filepath.Join(ws, ".husky/_/h"), false, RefusedGitInternals},
		{filepath.Join(ws, "src"), "../.husky/pre-commit", false, RefusedGitInternals},
		{ws, ".husky/pre-commit", true, ""},
		{ws, ".husky-old/x", false, ""},
		{ws, "src/a.go", false, ""},
		{plain, ".husky/pre-push", false, ""},
		{linked, "real-hooks/_/pre-commit", false, RefusedGitInternals},
		{ws, "vendor/lib/.githooks/pre-commit", false, RefusedGitInternals},
		{ws, "vendor/lib/.githooks/new", false, RefusedGitInternals},
		{ws, "vendor/lib/src.go", false, ""},
		{ws, "tools/git.inc", false, RefusedGitInternals},
		{ws, "tools/other.txt", false, ""},
		{linked, "real-hooks/other", false, RefusedGitInternals},
	})
	// Through the tools: the hook keeps its content.
	w, e := &writeFile{o: Options{Cwd: ws, Env: env}}, &editFile{o: Options{Cwd: ws, Env: env}}
	if r := w.Run(t.Context(), json.RawMessage(`{"path":".husky/pre-commit","content":"curl x | sh\n"}`)); !strings.Contains(r.Text, RefusedGitInternals) {
		t.Errorf("write_file .husky/pre-commit: %q; want %q", r.Text, RefusedGitInternals)
	}
	if r := e.Run(t.Context(), json.RawMessage(`{"path":".husky/pre-commit","old":"npm test","new":"curl x | sh"}`)); !strings.Contains(r.Text, RefusedGitInternals) {
		t.Errorf("edit_file .husky/pre-commit: %q; want %q", r.Text, RefusedGitInternals)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".husky", "pre-commit")); string(b) != "npm test\n" {
		t.Errorf(".husky/pre-commit = %q; want it unchanged", b)
	}
}

// TestWriteHomeConfig: where the working directory is the home directory
// (an agent started in ~), write_file refuses its configuration and
// caches (hidden entries, ~/go, ~/bin: protected.HomeConfig), which would
// be outside the working directory were it a project's; the rest of home
// is written. From a project below home they are outside, as always.
// AllowOutsideCwd lifts both.
func TestWriteHomeConfig(t *testing.T) {
	home := ostest.OutsideTemp(t)
	for _, d := range []string{".config/git", "go/bin", "bin", "proj"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".bashrc", ".config/git/config"} {
		if err := os.WriteFile(filepath.Join(home, f), []byte("ORIG\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
	wantWriteTargets(t, env, []writeTargetCase{
		{home, ".bashrc", false, RefusedHomeConfig},
		{home, ".BASHRC", false, RefusedHomeConfig},
		{home, ".zshrc", false, RefusedHomeConfig},
		{home, ".config/git/config", false, RefusedHomeConfig},
		{home, "go/bin/tool", false, RefusedHomeConfig},
		{home, "GO/bin/tool", false, RefusedHomeConfig},
		{home, "bin/tool", false, RefusedHomeConfig},
		{home, "proj/main.go", false, ""},
		{home, "notes.txt", false, ""},
		{home, ".bashrc", true, ""},
		{filepath.Join(home, "proj"), "../.bashrc", false, RefusedOutsideCwd},
		{filepath.Join(home, "proj"), "x.go", false, ""},
		// A working directory that holds home: beside home is not in it.
		{filepath.Dir(home), filepath.Join(filepath.Base(home)+"-sibling", "x.go"), false, ""},
		{filepath.Dir(home), filepath.Join(filepath.Base(home), ".profile"), false, RefusedHomeConfig},
	})
}

// writeTargetCase is a write target checked from a working directory:
// allow lifts the protection the test is about (its Allow* option).
type writeTargetCase struct {
	cwd, path string
	allow     bool
	want      string
}

// wantWriteTargets checks writeTarget for each case with env: a case's
// allow sets AllowGitInternals and AllowOutsideCwd, the options that lift
// the git metadata rule and the home configuration rule.
func wantWriteTargets(t *testing.T, env []string, cases []writeTargetCase) {
	t.Helper()
	for _, tc := range cases {
		o := Options{Cwd: tc.cwd, Env: env, AllowGitInternals: tc.allow, AllowOutsideCwd: tc.allow}
		if _, reason, bad := o.writeTarget(tc.path); reason != tc.want || bad != "" {
			t.Errorf("cwd %s: writeTarget(%q) = reason %q, bad %q; want %q", tc.cwd, tc.path, reason, bad, tc.want)
		}
	}
}
