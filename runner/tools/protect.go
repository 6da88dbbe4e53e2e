package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Protections are the runner's guard rails for the file tools. They
// are not an OS sandbox (docs/protocol.md, Launch: "Backend tools are not an OS
// sandbox"): a shell command can still do anything. A symlink swapped into
// a checked path before the open is not followed (openResolved opens the
// resolved path component by component with O_NOFOLLOW), and no file tool
// open blocks on a FIFO or device (O_NONBLOCK, then an fstat type check).
// They stop the model's file tools from
// stumbling into places a user would not expect it to touch:
//
//   - write_file and edit_file refuse a target outside Options.Cwd, unless
//     Options.AllowOutsideCwd. The target is resolved the way the kernel
//     will resolve it: symlinks of every existing component (dangling ones
//     too, since writing through one creates its target) and ".." after
//     them; the write then goes to that resolved path.
//   - write_file and edit_file refuse a target with a ".git" path component
//     (the repository's internals, or the .git file of a worktree or
//     submodule), in the path as given or as resolved, unless
//     Options.AllowGitInternals. Reading .git is allowed.
//   - write_file and edit_file refuse a target with a ".magi-code" path
//     component (project settings, skills and agent profiles under
//     <cwd>/.magi-code, which the next child loads), in the path as given
//     or as resolved, unless Options.AllowProjectConfig. Any such component
//     below cwd counts, like .git: a subagent or later session may run in
//     a subdirectory. Reading it is allowed.
//   - every file tool refuses credential files (credentialPath) unless
//     Options.AllowCredentialFiles: read_file refuses to read one, write_file
//     and edit_file refuse to write one, grep refuses one as its root and
//     skips them while walking a directory. list_dir shows names only and is
//     never refused.
//   - reading outside Cwd stays allowed: system headers, module caches and
//     sibling checkouts are ordinary things to read; the credential rule is
//     what keeps secrets out of a provider's context.

// Refusals: the text the model sees (Result.Text) when a protection stops a
// call. Fixed strings, so they are safe on the wire.
const (
	RefusedOutsideCwd      = "refused: writing outside the working directory is not allowed"
	RefusedGitInternals    = "refused: writing into .git internals is not allowed"
	RefusedCredentialWrite = "refused: writing credential files is not allowed"
	RefusedCredentialRead  = "refused: reading credential files is not allowed"
	RefusedProjectConfig   = "refused: writing magi-code settings is not allowed"
)

// maxLinks bounds symlink hops while resolving one path (Linux uses 40).
const maxLinks = 40

var errTooManyLinks = errors.New("too many levels of symbolic links")

// refused is the result of a call a protection stopped.
func refused(tool, reason string) Result {
	return Result{Text: reason, IsError: true, Summary: tool + ": " + reason}
}

// realPath resolves p (absolute) as the kernel would when creating it:
// every existing component that is a symlink is replaced by its target,
// dangling or not, and ".." applies to the resolved parent. Components past
// the first missing one are joined lexically: they will be created as plain
// directories, so lexical and physical agree there.
func realPath(p string) (string, error) {
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
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			return filepath.Join(append([]string{next}, rest...)...), nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return "", errTooManyLinks
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return cur, nil
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
	real, err := realPath(rawJoin(o.Cwd, p))
	if err != nil {
		return "", "", fsError(err)
	}
	if !o.AllowCredentialFiles && (o.credentialPath(lexical) || o.credentialPath(real)) {
		return "", RefusedCredentialWrite, ""
	}
	cwd := o.cwdReal
	if cwd == "" {
		cwd = realOrSelf(o.Cwd)
	}
	if !o.AllowGitInternals && (componentPath(filepath.Clean(o.Cwd), lexical, ".git") || componentPath(cwd, real, ".git")) {
		return "", RefusedGitInternals, ""
	}
	if !o.AllowProjectConfig && (componentPath(filepath.Clean(o.Cwd), lexical, ".magi-code") || componentPath(cwd, real, ".magi-code")) {
		return "", RefusedProjectConfig, ""
	}
	if !o.AllowOutsideCwd && !within(cwd, real) {
		return "", RefusedOutsideCwd, ""
	}
	return real, "", ""
}

// readTarget checks a read_file target. It returns the resolved path to
// open, or a refusal reason, or a safe filesystem outcome (bad) when the
// path cannot be resolved.
func (o Options) readTarget(p string) (real, reason, bad string) {
	if !o.AllowCredentialFiles && o.credentialPath(resolve(o.Cwd, p)) {
		return "", RefusedCredentialRead, ""
	}
	real, err := realPath(rawJoin(o.Cwd, p))
	if err != nil {
		return "", "", fsError(err)
	}
	if !o.AllowCredentialFiles && o.credentialPath(real) {
		return "", RefusedCredentialRead, ""
	}
	return real, "", ""
}

// readAllowed reports whether p (as given, against Cwd) may be read: it is
// refused only when it is a credential file, as given or resolved.
func (o Options) readAllowed(p string) bool {
	if o.AllowCredentialFiles {
		return true
	}
	if o.credentialPath(resolve(o.Cwd, p)) {
		return false
	}
	real, err := realPath(rawJoin(o.Cwd, p))
	return err != nil || !o.credentialPath(real)
}

// componentPath reports whether p has a component name (".git",
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
var (
	// credentialNames are base names that hold secrets wherever they are.
	credentialNames = map[string]bool{
		"auth.json":                            true, // magi-code, codex and other agents' login
		".env":                                 true,
		".netrc":                               true,
		"_netrc":                               true,
		".npmrc":                               true,
		".pypirc":                              true,
		".pgpass":                              true,
		".git-credentials":                     true,
		".dockercfg":                           true,
		".vault-token":                         true,
		".htpasswd":                            true,
		"credentials":                          true, // ~/.aws/credentials and the like
		"credentials.json":                     true,
		"credentials.db":                       true, // gcloud
		"application_default_credentials.json": true, // gcloud
		"access_tokens.db":                     true, // gcloud
		"id_rsa":                               true,
		"id_dsa":                               true,
		"id_ecdsa":                             true,
		"id_ed25519":                           true,
		"id_ecdsa_sk":                          true,
		"id_ed25519_sk":                        true,
	}
	// credentialDirs are directory names whose whole contents are
	// protected: keys, known hosts, authorized_keys, keyrings.
	credentialDirs = map[string]bool{".ssh": true, ".gnupg": true}
	// credentialExts are extensions of key material. A certificate and a
	// private key share .pem, and a name cannot tell them apart.
	credentialExts = map[string]bool{".pem": true, ".key": true, ".p12": true, ".pfx": true}
	// credentialInDir are base names that hold secrets in one directory.
	credentialInDir = map[string]string{
		"config.json": ".docker", // registry auth
		"config":      ".kube",   // cluster tokens
		"hosts.yml":   "gh",      // GitHub CLI tokens (~/.config/gh)
	}
	// envTemplates are .env.* suffixes that hold examples, not secrets.
	envTemplates = map[string]bool{"example": true, "sample": true, "template": true, "dist": true, "defaults": true}
)

// credentialPath reports whether the clean absolute path p is a credential
// file: under MCHome (settings, MCP approvals, auth), under a .ssh or .gnupg
// directory, or named like one (see the tables above). .env.example,
// .env.sample, .env.template, .env.dist and .env.defaults are not; .env and
// every other .env.* are.
func (o Options) credentialPath(p string) bool {
	if o.MCHome != "" && within(filepath.Clean(o.MCHome), p) || o.mcHomeReal != "" && within(o.mcHomeReal, p) {
		return true
	}
	parts := strings.Split(strings.ToLower(p), "/")
	base := parts[len(parts)-1]
	for _, d := range parts[:len(parts)-1] {
		if credentialDirs[d] {
			return true
		}
	}
	if credentialNames[base] || credentialExts[filepath.Ext(base)] {
		return true
	}
	if suffix, ok := strings.CutPrefix(base, ".env."); ok && !envTemplates[suffix] {
		return true
	}
	if dir, ok := credentialInDir[base]; ok && len(parts) >= 2 && parts[len(parts)-2] == dir {
		return true
	}
	return false
}
