package tools

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/magi-code/magi-code/runner/protected"
	shellcheck "github.com/magi-code/magi-code/runner/shell"
)

// Protections are the runner's guard rails for the file tools. They
// are not an OS sandbox (docs/protocol.md, Launch: "Backend tools are not an OS
// sandbox"): a shell command can still do anything its confinement allows.
// A symlink swapped into a checked path before the open is not followed
// (openResolved opens the resolved path component by component with
// O_NOFOLLOW, grep walks below its root by directory descriptor), and no
// file tool open blocks on a FIFO or device (O_NONBLOCK, then an fstat type
// check). The rules, in the order they are checked (docs/configuration.md,
// "What the tools may read and write"):
//
//   - every file tool refuses the process file system (procPath): anything
//     under /proc, /dev/fd, /dev/stdin, /dev/stdout and /dev/stderr, as
//     given, on the way while resolving symlinks, or resolved, and any file
//     or directory that turns out to live on a procfs mount wherever it is
//     mounted (fstatfs of the opened file). That is where the agent's own
//     environment (/proc/self/environ, the parent's) and memory are. No
//     setting relaxes it.
//   - every file tool refuses credential files (credentialPath) unless
//     Options.AllowCredentialFiles: read_file refuses to read one, write_file
//     and edit_file refuse to write one, grep and list_dir refuse one (or a
//     directory of them, such as ~/.ssh and $MC_HOME) as their root and grep
//     skips them while walking a directory.
//   - the read tools (read_file, grep, list_dir) read inside Options.Cwd
//     and the Options.ReadRoots without asking. A path that resolves
//     anywhere else (symlinks followed: a workspace link to a directory
//     outside is outside) asks the person first when
//     Options.AskOutsideReads (approval = "ask", ForceApproval) and is
//     refused otherwise (RefusedOutsideRead). The agent marks an approved
//     call's context (WithApproved), and Run reads outside only under that
//     mark. grep never follows a symlink below its root.
//   - write_file and edit_file refuse a target outside Options.Cwd, unless
//     Options.AllowOutsideCwd. The target is resolved the way the kernel
//     will resolve it: symlinks of every existing component (dangling ones
//     too, since writing through one creates its target) and ".." after
//     them; the write then goes to that resolved path.
//   - write_file and edit_file refuse a target with a path component that
//     is version control metadata (protected.VCS: .git, the .git file of a
//     worktree or submodule, Mercurial's and Sapling's .hg and .sl, jj's
//     .jj, Fossil's checkout database...), in the path as given or as
//     resolved, or that lies in a bare repository below cwd or would make one, unless
//     Options.AllowGitInternals. Reading it is allowed.
//   - write_file and edit_file refuse a target with a ".magi-code" or
//     ".claude" path component (protected.ProjectConfig: project settings,
//     skills and agent profiles, which the next child or session loads as
//     instructions), in the path as given or as resolved, unless
//     Options.AllowProjectConfig. Any such component below cwd counts,
//     like .git: a subagent or later session may run in a subdirectory.
//     Reading it is allowed.
//   - write_file and edit_file never change a file another hard link
//     names (writeFileAt): a target with more than one link is replaced by
//     a new file renamed over it, so the other names keep the old content.
//   - a client's file system (an ACP editor, clientfs.go), which follows
//     symlinks, is handed only a resolved path the tools' own open of it
//     holds at that moment.

// Refusals: the text the model sees (Result.Text) when a protection stops a
// call. Fixed strings, so they are safe on the wire.
const (
	RefusedOutsideCwd      = "refused: writing outside the working directory is not allowed"
	RefusedGitInternals    = "refused: writing into version control metadata (.git, .hg, .jj, .sl...) is not allowed"
	RefusedCredentialWrite = "refused: writing credential files is not allowed"
	RefusedCredentialRead  = "refused: reading credential files is not allowed"
	RefusedProjectConfig   = "refused: writing project settings, skills or agent profiles (.magi-code, .claude) is not allowed"
	RefusedHomeConfig      = "refused: writing the home directory's configuration and caches (its hidden files, ~/go, ~/bin) is not allowed"
	RefusedProcess         = "refused: the process file system (/proc, /dev/fd) is not readable"
	RefusedOutsideRead     = "refused: reading outside the working directory is not allowed without approval"
)

// ReasonReadOutside is the reason a read tool asks (ForceApproval) before
// reading outside the working directory and the read roots.
const ReasonReadOutside = "reads outside the working directory"

// maxLinks bounds symlink hops while resolving one path (Linux uses 40).
const maxLinks = 40

var errTooManyLinks = errors.New("too many levels of symbolic links")

// refused is the result of a call a protection stopped.
func refused(tool, reason string) Result {
	return Result{Text: reason, IsError: true, Summary: tool + ": " + reason}
}

// realPath resolves p (absolute) as the kernel would when creating it:
// every existing component that is a symlink is replaced by its target,
// dangling or not, and ".." applies to the resolved parent. A missing
// component stays as named: it will be created as a plain directory, so
// lexical and physical agree there (resolveTrace).
func realPath(p string) (string, error) {
	real, _, err := resolveTrace(p)
	return real, err
}

// resolveTrace is realPath that also reports whether the walk visited the
// process file system on the way (procPath): a link to /proc/self/root/x
// resolves to /x, but it was spelled through the agent's own /proc entry.
//
// A missing component is one the write will create, a plain directory:
// the walk goes on through it (the names below it are missing too), and
// after a ".." that leaves it resolves the existing components again.
// "missing/../link" is the link's target, never the link itself, which
// whoever opens it by name (an ACP client's editor) would follow wherever
// it leads.
func resolveTrace(p string) (real string, viaProc bool, err error) {
	rest := strings.Split(p, "/")
	cur := "/"
	links := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		if procPath(next) {
			viaProc = true
		}
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			cur = next
			continue
		}
		if err != nil {
			return "", viaProc, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return "", viaProc, errTooManyLinks
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", viaProc, err
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return cur, viaProc, nil
}

// procRoots are where the process file system shows this process (and
// every other): its environment, memory, open files and root. /dev/fd and
// the standard streams are links into it on Linux and a file system of
// their own (fdescfs) on macOS.
var procRoots = []string{"/proc", "/dev/fd", "/dev/stdin", "/dev/stdout", "/dev/stderr"}

// procPath reports whether the clean absolute path p is one of procRoots or
// below one.
func procPath(p string) bool {
	for _, r := range procRoots {
		if within(r, p) {
			return true
		}
	}
	return false
}

// rawJoin makes p absolute against cwd without cleaning it: ".." must meet
// resolved symlinks in realPath, not be folded away lexically first.
func rawJoin(cwd, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return cwd + "/" + p
}

// within reports whether p is root or below it. Both are clean and absolute.
func within(root, p string) bool {
	if root == "/" {
		return true
	}
	return p == root || strings.HasPrefix(p, root+"/")
}

// realOrSelf resolves dir, falling back to its clean form when it cannot be
// resolved (it then protects by its lexical path only).
func realOrSelf(dir string) string {
	if dir == "" {
		return ""
	}
	if r, err := realPath(filepath.Clean(dir)); err == nil {
		return r
	}
	return filepath.Clean(dir)
}

// writeTarget checks a write_file or edit_file target. It returns the
// resolved path to write, or a refusal reason, or a safe filesystem outcome
// (bad) when the path cannot be resolved.
func (o Options) writeTarget(p string) (real, reason, bad string) {
	lexical := resolve(o.Cwd, p)
	real, viaProc, err := resolveTrace(rawJoin(o.Cwd, p))
	if viaProc || procPath(real) {
		return "", RefusedProcess, ""
	}
	if err != nil {
		return "", "", fsError(err)
	}
	if !o.AllowCredentialFiles && (o.credentialPath(lexical) || o.credentialPath(real)) {
		return "", RefusedCredentialWrite, ""
	}
	cwd := o.cwdRealOrSelf()
	in := func(names []string) bool {
		return slices.ContainsFunc(names, func(dir string) bool {
			return componentPath(filepath.Clean(o.Cwd), lexical, dir) || componentPath(cwd, real, dir)
		})
	}
	if !o.AllowGitInternals && (in(protected.VCS) || inBareRepository(cwd, real) || o.inGitRunPaths(real)) {
		return "", RefusedGitInternals, ""
	}
	if !o.AllowProjectConfig && in(protected.ProjectConfig) {
		return "", RefusedProjectConfig, ""
	}
	if !o.AllowOutsideCwd && !within(cwd, real) {
		return "", RefusedOutsideCwd, ""
	}
	if !o.AllowOutsideCwd && o.inHomeConfig(cwd, real) {
		return "", RefusedHomeConfig, ""
	}
	return real, "", ""
}

// inGitRunPaths reports whether real (a resolved path) is or lies in a
// path outside the git directory that the person's next git command reads
// as configuration or runs (shellcheck.GitRunPaths: a configuration file a
// repository includes, the hooks directory core.hooksPath names, husky's
// .husky): version control metadata like .git/config and .git/hooks.
// Letter case is ignored, as for the names of metadata.
func (o Options) inGitRunPaths(real string) bool {
	// The working directory's repository's, and that of the repository
	// holding the path (a nested one, with its own core.hooksPath).
	hooks := append(shellcheck.GitRunPaths(o.cwdRealOrSelf(), o.Env), shellcheck.GitRunPaths(filepath.Dir(real), o.Env)...)
	for _, d := range hooks {
		if within(strings.ToLower(realOrSelf(d)), strings.ToLower(real)) {
			return true
		}
	}
	return false
}

// inHomeConfig reports whether real lies in the configuration and caches
// of a home directory that the working directory cwd holds (an agent
// started in ~: protected.HomeConfigName, ~/.bashrc, ~/.config, ~/go...),
// which would be outside the working directory were it a project's: the
// home of the tools' environment and this process's. Letter case is
// ignored.
func (o Options) inHomeConfig(cwd, real string) bool {
	for _, h := range protected.Homes(o.Env) {
		h = realOrSelf(h)
		if !within(cwd, h) {
			continue
		}
		// By name, so that a new one (~/.bash_aliases, which ~/.bashrc
		// sources when it exists) is refused too.
		if rel, err := filepath.Rel(h, real); err == nil && rel != "." && within(h, real) {
			first, _, _ := strings.Cut(rel, string(filepath.Separator))
			if protected.HomeConfigName(first) {
				return true
			}
		}
	}
	return false
}

// inBareRepository reports whether real lies in a bare repository below
// cwd (protected.BareRepository: a test fixture's origin.git, whose hooks
// run when the person pushes to it), or would make one (makesBare).
func inBareRepository(cwd, real string) bool {
	for d := filepath.Dir(real); d != cwd && within(cwd, d); d = filepath.Dir(d) {
		if protected.BareRepository(d) || makesBare(d, real) {
			return true
		}
	}
	return false
}

// makesBare reports whether writing real, below d, may complete a bare
// repository at d: real is d's HEAD or lies in its objects or refs (in
// any letter case), and d holds the other two (src/HEAD written beside
// src/objects and src/refs: git run in src takes it for a repository and
// runs its config).
func makesBare(d, real string) bool {
	rel, err := filepath.Rel(d, real)
	if err != nil {
		return false
	}
	first, _, _ := strings.Cut(rel, string(filepath.Separator))
	part := func(name string) bool { return strings.EqualFold(name, first) }
	if !part("HEAD") && !part("objects") && !part("refs") {
		return false
	}
	for _, p := range []struct {
		name string
		dir  bool
	}{{"HEAD", false}, {"objects", true}, {"refs", true}} {
		if part(p.name) {
			continue
		}
		if fi, err := os.Lstat(filepath.Join(d, p.name)); err != nil || fi.IsDir() != p.dir {
			return false
		}
	}
	return true
}

// readCheck is what the read tools decided about a path before opening it.
type readCheck struct {
	real    string // the resolved path to open
	refuse  string // a protection's fixed refusal, "" when none applies
	bad     string // a safe filesystem outcome when the path cannot be resolved
	outside bool   // outside Cwd and every read root: asks, or is refused
}

// readTarget checks a read tool's target p (as given, against Cwd) in the
// order of the rules (see above): the process file system (any path that
// visits it while resolving: every spelling that starts with /proc does),
// credential files, then where it resolves. tree says the tool reads below p (grep,
// list_dir), so that a directory of credentials (~/.ssh, $MC_HOME) is
// refused as a whole. Protections are decided before the path is resolved
// when the path as given already shows them, and again on the resolved
// path; only a path no protection refuses can be outside.
func (o Options) readTarget(p string, tree bool) readCheck {
	lexical := resolve(o.Cwd, p)
	if o.credentialRead(lexical, tree) {
		return readCheck{refuse: RefusedCredentialRead}
	}
	real, viaProc, err := resolveTrace(rawJoin(o.Cwd, p))
	switch {
	case viaProc || procPath(real):
		return readCheck{refuse: RefusedProcess}
	case err != nil:
		return readCheck{bad: fsError(err)}
	case o.credentialRead(real, tree):
		return readCheck{refuse: RefusedCredentialRead}
	}
	return readCheck{real: real, outside: !o.readable(real)}
}

// credentialRead reports whether reading p (or, for a tree, what lies
// below it) is refused as a credential.
func (o Options) credentialRead(p string, tree bool) bool {
	if o.AllowCredentialFiles {
		return false
	}
	return o.credentialPath(p) || tree && o.credentialPath(filepath.Join(p, "x"))
}

// readable reports whether the resolved path real lies inside the working
// directory or a read root: read without asking.
func (o Options) readable(real string) bool {
	if within(o.cwdRealOrSelf(), real) {
		return true
	}
	for _, r := range o.readRootsReal {
		if within(r, real) {
			return true
		}
	}
	return false
}

// cwdRealOrSelf is Cwd with its symlinks resolved.
func (o Options) cwdRealOrSelf() string {
	if o.cwdReal != "" {
		return o.cwdReal
	}
	return realOrSelf(o.Cwd)
}

// checkRead is readTarget as a read tool's Run applies it to its call
// (tool, args) with path p: a refusal, a filesystem outcome, or a read
// outside that no approval covers (ctx was not marked by WithApproved for
// this very call, or outside reads do not ask) stop the call with a
// result; otherwise it returns the resolved path.
func (o Options) checkRead(ctx context.Context, tool string, args json.RawMessage, p string, tree bool) (string, *Result) {
	c := o.readTarget(p, tree)
	var res Result
	switch {
	case c.refuse != "":
		res = refused(tool, c.refuse)
	case c.bad != "":
		res = errResult(tool, c.bad)
	case c.outside && !(o.AskOutsideReads && approved(ctx, tool, args)):
		res = refused(tool, RefusedOutsideRead)
	default:
		return c.real, nil
	}
	return "", &res
}

// askOutside is the read tools' ForceApproval: under AskOutsideReads, a
// path no protection refuses that lies outside asks, with
// ReasonReadOutside. Everything else does not ask: Run refuses it or reads
// it.
func (o Options) askOutside(p string, tree bool) (bool, string) {
	if !o.AskOutsideReads || p == "" {
		return false, ""
	}
	if c := o.readTarget(p, tree); c.refuse == "" && c.bad == "" && c.outside {
		return true, ReasonReadOutside
	}
	return false, ""
}

// approvedKey marks the context of a call the person approved.
type approvedKey struct{}

// approvedCall is the call an approved context belongs to.
type approvedCall struct{ tool, args string }

// WithApproved returns ctx marked as the context of the tool call (tool,
// args) whose approval request the person allowed. The runner marks the
// context it runs an approved call with; a read tool reads outside the
// working directory only under the mark of that same call (and only when
// outside reads ask), so a call nested in an approved one (a program, a
// subagent) is not covered by it.
func WithApproved(ctx context.Context, tool string, args json.RawMessage) context.Context {
	return context.WithValue(ctx, approvedKey{}, approvedCall{tool, string(args)})
}

// approved reports whether ctx carries WithApproved's mark for the call
// (tool, args).
func approved(ctx context.Context, tool string, args json.RawMessage) bool {
	c, ok := ctx.Value(approvedKey{}).(approvedCall)
	return ok && c == approvedCall{tool, string(args)}
}

// componentPath reports whether p has a component name (".hg",
// ".magi-code") below cwd (or anywhere, when p is outside cwd).
// Case-insensitive: macOS file systems are.
func componentPath(cwd, p, name string) bool {
	if within(cwd, p) {
		p = strings.TrimPrefix(p[len(cwd):], "/")
	}
	for _, c := range strings.Split(p, "/") {
		if strings.EqualFold(c, name) {
			return true
		}
	}
	return false
}

// Credential files, compared lowercase (macOS file systems ignore case).
// The list names where well-known tools keep secrets in a person's home
// (and the names a project uses for its own); it is the second line of
// defence: reads outside the working directory ask or are refused first
// (docs/configuration.md, "What the tools may read and write"). Each entry
// says whose it is.
var (
	// credentialNames are base names that hold secrets wherever they are.
	credentialNames = map[string]bool{
		"auth.json":                            true, // magi-code, codex, podman/skopeo (containers/auth.json) logins
		".credentials.json":                    true, // Claude Code's login (~/.claude)
		".env":                                 true,
		".netrc":                               true,
		"_netrc":                               true,
		".npmrc":                               true, // npm registry tokens
		".yarnrc.yml":                          true, // yarn npmAuthToken
		".pypirc":                              true, // PyPI upload tokens
		".pgpass":                              true, // PostgreSQL passwords
		".my.cnf":                              true, // MySQL client passwords
		".git-credentials":                     true, // git credential-store
		".dockercfg":                           true,
		".vault-token":                         true, // HashiCorp Vault
		".htpasswd":                            true,
		".s3cfg":                               true, // s3cmd
		".boto":                                true, // gsutil, boto
		".terraformrc":                         true, // Terraform CLI config (credentials blocks)
		"credentials":                          true, // ~/.aws/credentials, ~/.gem/credentials, ~/.config/git/credentials
		"credentials.toml":                     true, // Cargo registry tokens (~/.cargo)
		"credentials.json":                     true,
		"credentials.tfrc.json":                true, // terraform login (~/.terraform.d)
		"credentials.db":                       true, // gcloud
		"application_default_credentials.json": true, // gcloud
		"access_tokens.db":                     true, // gcloud
		"kaggle.json":                          true, // Kaggle API key
		".claude.json":                         true, // Claude Code's state (an API key login keeps primaryApiKey there)
		"oauth_creds.json":                     true, // Gemini CLI's OAuth tokens (~/.gemini)
		".databrickscfg":                       true, // Databricks tokens
		".sentryclirc":                         true, // Sentry auth token
		"ngrok.yml":                            true, // ngrok authtoken (~/.config/ngrok, ~/.ngrok2)
		"id_rsa":                               true,
		"id_dsa":                               true,
		"id_ecdsa":                             true,
		"id_ed25519":                           true,
		"id_ecdsa_sk":                          true,
		"id_ed25519_sk":                        true,
	}
	// credentialDirs are directories whose whole contents are protected,
	// as consecutive path components: keys, keyrings, token caches.
	credentialDirs = [][]string{
		{".ssh"},                        // OpenSSH keys, known hosts, authorized_keys
		{".gnupg"},                      // GnuPG keyrings
		{".aws"},                        // AWS CLI credentials, config (may hold keys) and SSO token cache
		{".azure"},                      // Azure CLI token cache, service principals
		{".config", "gcloud"},           // Google Cloud SDK credentials and tokens
		{".config", "gh"},               // GitHub CLI (hosts.yml tokens)
		{".config", "op"},               // 1Password CLI
		{".config", "rclone"},           // rclone remotes with tokens
		{".config", "doctl"},            // DigitalOcean CLI token
		{".oci"},                        // Oracle Cloud keys
		{".password-store"},             // pass
		{".local", "share", "keyrings"}, // GNOME keyring
		{".docker", "contexts"},         // Docker contexts with TLS material
		{".huggingface"},                // Hugging Face token (legacy place)
	}
	// credentialExts are extensions of key material. A certificate and a
	// private key share .pem, and a name cannot tell them apart.
	credentialExts = map[string]bool{".pem": true, ".key": true, ".p12": true, ".pfx": true, ".jks": true, ".keystore": true}
	// credentialFiles are files known by their last path components.
	credentialFiles = [][]string{
		{".docker", "config.json"},                  // Docker registry auth
		{".kube", "config"},                         // Kubernetes cluster tokens
		{"gh", "hosts.yml"},                         // GitHub CLI tokens wherever GH_CONFIG_DIR is
		{".config", "hub"},                          // hub's GitHub token
		{".m2", "settings.xml"},                     // Maven server passwords
		{".m2", "settings-security.xml"},            // Maven master password
		{".gradle", "gradle.properties"},            // Gradle publishing credentials
		{".config", "github-copilot", "hosts.json"}, // Copilot tokens
		{".config", "github-copilot", "apps.json"},
		{"huggingface", "token"},          // Hugging Face token (~/.cache/huggingface)
		{"glab-cli", "config.yml"},        // GitLab CLI token (~/.config/glab-cli)
		{"io.datasette.llm", "keys.json"}, // llm's provider API keys (~/.config/io.datasette.llm)
		{".fly", "config.yml"},            // flyctl access token
	}
	// envTemplates are .env.* suffixes that hold examples, not secrets.
	envTemplates = map[string]bool{"example": true, "sample": true, "template": true, "dist": true, "defaults": true}
)

// HomeCredentials lists, from the tables above, the credential files and
// directories of a person whose home is home that exist: each of
// credentialDirs and credentialFiles in home, and each of credentialNames
// and credentialFiles in home, in a hidden directory directly in home
// (~/.cargo/credentials.toml, ~/.gem/credentials, ~/.codex/auth.json,
// ~/.cache/huggingface/token) and in a directory directly in ~/.config
// (a link to a directory counts: the sandbox protects where it leads)
// (~/.config/git/credentials, ~/.config/containers/auth.json). A directory
// with more than maxHomeEntries entries is not looked into. credentialExts
// and the .env.* names are not places and are not listed. The OS sandbox
// keeps these unreadable to a confined command without the network
// (runner's confinement, sandbox.Policy.Unreadable).
func HomeCredentials(home string) []string {
	var out []string
	add := func(p string) {
		if _, err := os.Lstat(p); err == nil && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, d := range credentialDirs {
		add(filepath.Join(append([]string{home}, d...)...))
	}
	names := slices.Sorted(maps.Keys(credentialNames))
	bases := append([]string{home}, children(home, true)...)
	bases = append(bases, children(filepath.Join(home, ".config"), false)...)
	for _, b := range bases {
		for _, f := range credentialFiles {
			add(filepath.Join(append([]string{b}, f...)...))
		}
		for _, n := range names {
			add(filepath.Join(b, n))
		}
	}
	return out
}

// linkedCredentials lists where the credential stores of home
// (HomeCredentials) lead, resolved, when that is not where they are named:
// a store that is a symbolic link or lies below one.
func linkedCredentials(home string) []string {
	var out []string
	for _, p := range HomeCredentials(home) {
		if r, err := filepath.EvalSymlinks(p); err == nil && r != p && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// MCHomeLinks lists where the entries of mcHome (MC_HOME) that are
// symbolic links lead, resolved: a settings file (which may hold MCP
// servers' tokens) or an auth.json kept in a dotfiles checkout and linked
// into MC_HOME is MC_HOME's all the same, to the file tools and to the OS
// sandbox (runner's confinement). Entries of its directories are not
// looked into; a directory with more than maxHomeEntries entries is not
// read.
func MCHomeLinks(mcHome string) []string {
	var out []string
	for _, p := range children(mcHome, false) {
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		if r, err := filepath.EvalSymlinks(p); err == nil && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// maxHomeEntries bounds the entries HomeCredentials reads from one
// directory.
const maxHomeEntries = 4096

// children returns the entries directly in dir (directories, or links
// that may lead to one: joining a name to anything else finds nothing),
// only the hidden ones if hidden; none if dir has more than
// maxHomeEntries entries or cannot be read.
func children(dir string, hidden bool) []string {
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	entries, err := f.ReadDir(maxHomeEntries + 1)
	if err != nil && !errors.Is(err, io.EOF) || len(entries) > maxHomeEntries {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !hidden || strings.HasPrefix(e.Name(), ".") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// credentialPath reports whether the clean absolute path p is a credential
// file: under MCHome (settings, MCP approvals, auth) or where its links
// lead (MCHomeLinks), where one of Home's credential stores leads
// (linkedCredentials), under one of
// credentialDirs, or named like one (see the tables above). .env.example,
// .env.sample, .env.template, .env.dist and .env.defaults are not; .env and
// every other .env.* are.
func (o Options) credentialPath(p string) bool {
	if o.MCHome != "" && within(filepath.Clean(o.MCHome), p) || o.mcHomeReal != "" && within(o.mcHomeReal, p) {
		return true
	}
	if o.credLinks != nil && slices.ContainsFunc(o.credLinks(), func(r string) bool { return within(r, p) }) {
		return true
	}
	parts := strings.Split(strings.ToLower(p), "/")
	base := parts[len(parts)-1]
	for _, d := range credentialDirs {
		// The directory's components, followed by at least one more.
		for i := 0; i+len(d) < len(parts); i++ {
			if slices.Equal(parts[i:i+len(d)], d) {
				return true
			}
		}
	}
	if credentialNames[base] || credentialExts[filepath.Ext(base)] {
		return true
	}
	if suffix, ok := strings.CutPrefix(base, ".env."); ok && !envTemplates[suffix] {
		return true
	}
	for _, f := range credentialFiles {
		if len(parts) >= len(f) && slices.Equal(parts[len(parts)-len(f):], f) {
			return true
		}
	}
	return false
}
