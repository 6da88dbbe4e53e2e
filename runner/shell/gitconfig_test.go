package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGitConfigBoundEdges: each bound holds at its limit and is passed
// one past it. Every file git would read counts, /etc/gitconfig included.
func TestGitConfigBoundEdges(t *testing.T) {
	etc := 0
	if fi, err := os.Stat("/etc/gitconfig"); err == nil {
		etc = int(fi.Size())
	}
	chain := func(n int) map[string]string { // .gitconfig and n nested includes
		fs := map[string]string{}
		prev := ".gitconfig"
		for i := 1; i <= n; i++ {
			name := fmt.Sprintf("inc%d", i)
			fs[prev] = "[include]\n\tpath = " + name + "\n"
			prev = name
		}
		fs[prev] = "[alias]\n\tok = log\n"
		return fs
	}
	flat := func(n int) map[string]string { // .gitconfig including n files
		var b strings.Builder
		b.WriteString("[include]\n")
		fs := map[string]string{}
		for i := range n {
			fmt.Fprintf(&b, "\tpath = f%d\n", i)
			fs[fmt.Sprintf("f%d", i)] = "[alias]\n\tok = log\n"
		}
		fs[".gitconfig"] = b.String()
		return fs
	}
	sized := func(n int) map[string]string { // n bytes in all, /etc/gitconfig's counted
		head := "[alias]\n\tx = "
		return map[string]string{".gitconfig": head + strings.Repeat("y", n-etc-len(head)-1) + "\n"}
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  bool
	}{
		// The repository's config and config.worktree, ~/.gitconfig,
		// the XDG file and /etc/gitconfig are five files: 27 includes
		// make 32.
		{"includes 10 deep", chain(10), false}, {"includes 11 deep", chain(11), true},
		{"32 files", flat(27), false}, {"33 files", flat(28), true},
		{"the byte bound", sized(maxGitConfigBytes), false}, {"a byte past it", sized(maxGitConfigBytes + 1), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, at := newLayout(t)
			if err := os.MkdirAll(filepath.Join(l.ws, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			for p, c := range tc.files {
				if err := os.WriteFile(filepath.Join(l.home, p), []byte(c), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got, _ := Destructive("git push", at); got != tc.want {
				t.Errorf("Destructive(git push) = %v; want %v", got, tc.want)
			}
		})
	}
}

// TestParseGitConfigEnds: a file that ends inside a line (after white
// space, a comment, a bare key, a value, a trailing backslash), comments
// after a bare key, a line git cannot read, and every character class of
// a key's name.
func TestParseGitConfigEnds(t *testing.T) {
	for src, want := range map[string][]gitSetting{
		"[a]\n\tk = v\n  ":         {{"a.k", "v"}},
		"[a]\n\tk = v\n# c":        {{"a.k", "v"}},
		"[a]\n\tbare":              {{"a.bare", "true"}},
		"[a]\n\tk = v\\":           {{"a.k", "v\\"}},
		"[a]\n\tk = v":             {{"a.k", "v"}},
		"[a]\n\tk = v # c":         {{"a.k", "v"}},
		"[a]\n\tbare # c\n\tk = v": {{"a.bare", "true"}, {"a.k", "v"}},
		"[a]\n\tbare ; c\n\tk = v": {{"a.bare", "true"}, {"a.k", "v"}},
		"[a]\n\tk junk\n\tq = w":   nil,
		"[a]\n\tx09AZ = v":         {{"a.x09az", "v"}},
	} {
		if got := parseGitConfig(src); !slices.Equal(got, want) {
			t.Errorf("parseGitConfig(%q) = %q; want %q", src, got, want)
		}
	}
}

// TestGitDirWalkUp: a command run below a repository's top reads that
// repository's configuration.
func TestGitDirWalkUp(t *testing.T) {
	_, at := gitLayout(t)
	for cmd, want := range map[string]Reason{
		"git -C forced/deep/er push": ReasonGitPush, "cd forced/src && git push": ReasonGitPush,
		"git -C plain/src push": "",
	} {
		if _, why := Destructive(cmd, at); why != want {
			t.Errorf("Destructive(%q) = %q; want %q", cmd, why, want)
		}
	}
}

// TestGitConfigSpellings: git's spellings of the settings that make a
// plain push force: section and key names in any case, quoted and old
// style subsections, every boolean word, escapes, continuations and an
// include relative to the including file.
func TestGitConfigSpellings(t *testing.T) {
	l, at := newLayout(t)
	for i, tc := range []struct {
		config string
		files  map[string]string // more files in the repository's .git
		want   bool
	}{
		{"[REMOTE \"Origin\"]\n\tMIRROR = Yes\n", nil, true},
		{"[Remote.origin]\n\tmirror = on\n", nil, true},
		{"[remote \"o\"]\n\tmirror = 1\n", nil, true},
		{"[remote \"o\"]\n\tmirror = TRUE ; why\n", nil, true},
		{"[remote \"o\"]\n\tmirror = \"off\"\n", nil, false},
		{"[remote \"o\"]\n\tmirror = no\n", nil, false},
		{"[remote \"o\\\"x\"]\n\tPush = \\\n+refs/heads/*\n", nil, true},
		{"[remote \"o\"]\n\tpush = \"\"+refs/heads/main\n", nil, true},
		{"[remote \"o\"]\n\tpush = \":refs/heads/old\"\n", nil, true},
		{"[remote \"o\"]\n\tpush = refs/heads/main:refs/heads/main # +x\n", nil, false},
		{"[Push]\n\tRecurseSubmodules = On-Demand\n", nil, true},
		{"[push]\n\trecurseSubmodules = only\n", nil, true},
		{"[push]\n\trecurseSubmodules = check\n", nil, false},
		{"[push]\n\trecurseSubmodules = No\n", nil, false},
		{"[include]\n\tpath = more\n", map[string]string{"more": "[remote \"o\"]\n\tmirror\n"}, true},
		{"[includeIf \"onbranch:main\"]\n\tpath = more\n", map[string]string{"more": "[remote \"o\"]\n\tpush = +main\n"}, true},
		{"[include]\n\tpath = more\n", map[string]string{"more": "[remote \"o\"]\n\tmirror = false\n"}, false},
	} {
		dir := filepath.Join(l.ws, fmt.Sprint("r", i))
		files := map[string]string{"config": tc.config}
		for k, v := range tc.files {
			files[k] = v
		}
		for name, c := range files {
			writeFiles(t, map[string]string{filepath.Join(dir, ".git", name): c}, 0o644)
		}
		cmd := fmt.Sprintf("git -C r%d push", i)
		if got, _ := Destructive(cmd, at); got != tc.want {
			t.Errorf("%s with %q: Destructive = %v; want %v", cmd, tc.config, got, tc.want)
		}
	}
}

// TestGitConfigVisitsBounded: a file that includes itself several times
// costs about maxGitConfigFiles visits (cached files count), not one per
// path of the include tree (4^11 here), and leaves the configuration unsure.
func TestGitConfigVisitsBounded(t *testing.T) {
	home := t.TempDir()
	p := filepath.Join(home, ".gitconfig")
	src := "[alias]\n\tok = log\n[include]\n" + strings.Repeat("\tpath = ~/.gitconfig\n", 4)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &gitReader{home: home, cache: map[string]gitFile{}, read: new(int)}
	r.file(p, 0)
	// Past the bound each further visit returns at once: the include lines
	// left on the stack (4 per level) add at most that many.
	if !r.unsure || r.files > maxGitConfigFiles+4*(maxGitIncludes+1) || len(r.settings) > 5*maxGitConfigFiles {
		t.Fatalf("unsure %v after %d visits and %d settings", r.unsure, r.files, len(r.settings))
	}
}

// TestGitConfigReadBoundPerCheck: the bytes read from disk are bounded over
// the whole check, not per git command: two repositories' configs that fit
// the bound each but not together leave the second push unsure.
func TestGitConfigReadBoundPerCheck(t *testing.T) {
	l, at := newLayout(t)
	for _, d := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(l.ws, d, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
		cfg := "[alias]\n\tx = " + strings.Repeat("y", maxGitConfigBytes*2/3) + "\n"
		if err := os.WriteFile(filepath.Join(l.ws, d, ".git", "config"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := Destructive("git -C a push", at); got {
		t.Fatal("one repository's config within the bound makes git push ask")
	}
	if got, _ := Destructive("git -C a push; git -C b push", at); !got {
		t.Fatal("two configs over the bound together: git push does not ask")
	}
}

// TestGitRunPaths: the directories of git hooks that core.hooksPath puts
// outside the git directory, read as git reads its configuration: the
// repository's file wins over the global ones, a relative path is taken
// from the work tree's top (also from a subdirectory, and from a worktree
// whose .git is a file), "~/" from HOME, and the directory holding the
// hooks is returned too unless it is the top. None without the setting,
// outside a repository, or for a hooks path holding the whole work tree.
func TestGitRunPaths(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	write := func(p, content string) {
		t.Helper()
		writeFiles(t, map[string]string{p: content}, 0o644)
	}
	ws := func(name, config string) string {
		d := filepath.Join(root, name)
		write(filepath.Join(d, ".git", "config"), config)
		if err := os.MkdirAll(filepath.Join(d, "sub", "deep"), 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	husky := ws("husky", "[core]\n\thooksPath = .husky/_\n")
	top := ws("top", "[core]\n\thooksPath = .githooks\n")
	deep := ws("deep", "[core]\n\thooksPath = tools/git/hooks\n")
	tilde := ws("tilde", "[core]\n\thooksPath = ~/hooks\n")
	override := ws("override", "[core]\n\thooksPath = mine\n")
	plain := ws("plain", "[core]\n\tbare = false\n")
	dot := ws("dot", "[core]\n\thooksPath = .\n[include]\n\tpath = ../d.inc\n")
	above := ws("above", "[core]\n\thooksPath = ..\n")
	included := ws("included", "[include]\n\tpath = extra.inc\n")
	write(filepath.Join(included, ".git", "extra.inc"), "[Core]\n\tHooksPath = inc\n")
	empty := ws("empty", "[core]\n\thooksPath = h\n[core]\n\thooksPath =\n")
	// A repository that includes a file it commits, and one whose
	// conditional include names a file not there yet; both with hooks.
	shared := ws("shared", "[include]\n\tpath = ../tools/git.inc\n[includeIf \"onbranch:main\"]\n\tpath = ../missing.inc\n")
	write(filepath.Join(shared, "tools", "git.inc"), "[core]\n\thooksPath = .githooks\n[include]\n\tpath = nested.inc\n")
	write(filepath.Join(shared, "tools", "nested.inc"), "")
	// A worktree: its .git is a file naming a git directory elsewhere,
	// whose common directory holds the configuration.
	wt := filepath.Join(root, "wt")
	if err := os.MkdirAll(filepath.Join(wt, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(wt, ".git"), "gitdir: "+filepath.Join(husky, ".git", "worktrees", "wt")+"\n")
	write(filepath.Join(husky, ".git", "worktrees", "wt", "commondir"), "../..\n")
	write(filepath.Join(home, ".gitconfig"), "[core]\n\thooksPath = global-hooks\n")
	nohome := filepath.Join(root, "nohome")
	env := []string{"HOME=/elsewhere", "HOME=" + home}
	for _, tc := range []struct {
		dir  string
		env  []string
		want []string
	}{
		{husky, env, []string{filepath.Join(husky, ".husky/_"), filepath.Join(husky, ".husky")}},
		{filepath.Join(husky, "sub", "deep"), env, []string{filepath.Join(husky, ".husky/_"), filepath.Join(husky, ".husky")}},
		{top, env, []string{filepath.Join(top, ".githooks")}},
		{deep, env, []string{filepath.Join(deep, "tools/git/hooks"), filepath.Join(deep, "tools/git")}},
		{tilde, env, []string{filepath.Join(home, "hooks"), home}},
		{override, env, []string{filepath.Join(override, "mine")}},
		{plain, env, []string{filepath.Join(plain, "global-hooks")}},
		{plain, []string{"HOME=" + nohome}, nil},
		{plain, []string{"HOME=" + nohome, "XDG_CONFIG_HOME=" + filepath.Join(home, "xdg")}, nil},
		{included, env, []string{filepath.Join(included, "inc")}},
		{empty, env, nil},
		{dot, env, []string{filepath.Join(dot, "d.inc")}},
		{above, env, nil},
		{wt, env, []string{filepath.Join(wt, ".husky/_"), filepath.Join(wt, ".husky")}},
		{filepath.Join(wt, "sub"), env, []string{filepath.Join(wt, ".husky/_"), filepath.Join(wt, ".husky")}},
		{root, env, nil},
		{husky, []string{"HOME=relative"}, nil},
		{shared, env, []string{filepath.Join(shared, "tools/git.inc"), filepath.Join(shared, "tools/nested.inc"), filepath.Join(shared, "missing.inc"), filepath.Join(shared, ".githooks")}},
	} {
		if got := GitRunPaths(tc.dir, tc.env); !slices.Equal(got, tc.want) {
			t.Errorf("GitRunPaths(%s, %q) = %q; want %q", tc.dir, tc.env, got, tc.want)
		}
	}
	write(filepath.Join(home, "xdg", "git", "config"), "[core]\n\thooksPath = xdg-hooks\n")
	if got, want := GitRunPaths(plain, []string{"HOME=" + nohome, "XDG_CONFIG_HOME=" + filepath.Join(home, "xdg")}), []string{filepath.Join(plain, "xdg-hooks")}; !slices.Equal(got, want) {
		t.Errorf("GitRunPaths with XDG_CONFIG_HOME = %q; want %q", got, want)
	}
}
