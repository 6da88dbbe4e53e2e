//go:build linux

package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// readTree builds, under a temporary root, a workspace with links into
// /proc, out of the workspace and into the storage root, a sibling whose
// name starts with the workspace's, credential stores of a home directory,
// and MC_HOME reached through a link:
//
//	work/            the session cwd
//	work-old/        a sibling: merely starts with the workspace's name
//	outside/, rooted/ (a read root), rooted-2/ (starts with its name)
//	home/...         credential stores
//	mchome/, mclinkhome -> mchome (MC_HOME is the link)
func readTree(t *testing.T) (root string, o Options) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"work/a.txt":                                   "inside CANARY\n",
		"work/sub/b.txt":                               "bee CANARY\n",
		"work-old/secret.txt":                          "old CANARY\n",
		"outside/target.txt":                           "outside CANARY\n",
		"rooted/r.txt":                                 "rooted CANARY\n",
		"rooted-2/r.txt":                               "rooted-2 CANARY\n",
		"home/.cargo/credentials.toml":                 "token = \"CANARY\"\n",
		"home/.cargo/credentials":                      "token = \"CANARY\"\n",
		"home/.config/hub":                             "oauth_token: CANARY\n",
		"home/.config/gh/hosts.yml":                    "oauth_token: CANARY\n",
		"home/.azure/msal_token_cache.json":            "CANARY\n",
		"home/.terraform.d/credentials.tfrc.json":      "CANARY\n",
		"home/.docker/config.json":                     "CANARY\n",
		"home/.kube/config":                            "CANARY\n",
		"home/.npmrc":                                  "CANARY\n",
		"home/.pypirc":                                 "CANARY\n",
		"home/.git-credentials":                        "CANARY\n",
		"home/.aws/credentials":                        "CANARY\n",
		"home/.config/gcloud/access_tokens.db":         "CANARY\n",
		"home/.config/gcloud/legacy_credentials/x/a":   "CANARY\n",
		"mchome/auth.json":                             "CANARY\n",
		"mchome/sessions/s.jsonl":                      "CANARY\n",
		"home/.local/share/keyrings/login.keyring":     "CANARY\n",
		"home/.config/github-copilot/hosts.json":       "CANARY\n",
		"home/.claude/.credentials.json":               "CANARY\n",
		"home/.m2/settings.xml":                        "CANARY\n",
		"home/.ssh/id_ed25519":                         "CANARY\n",
		"home/.gnupg/private-keys-v1.d/k.key":          "CANARY\n",
		"home/.password-store/site.gpg":                "CANARY\n",
		"home/.config/op/config":                       "CANARY\n",
		"home/.oci/config":                             "CANARY\n",
		"home/.vault-token":                            "CANARY\n",
		"home/.cache/huggingface/token":                "CANARY\n",
		"home/.config/rclone/rclone.conf":              "CANARY\n",
		"home/.gradle/gradle.properties":               "CANARY\n",
		"home/.my.cnf":                                 "CANARY\n",
		"home/.s3cfg":                                  "CANARY\n",
		"home/.terraformrc":                            "CANARY\n",
		"home/.yarnrc.yml":                             "CANARY\n",
		"home/.config/containers/auth.json":            "CANARY\n",
		"home/.gem/credentials":                        "CANARY\n",
		"home/.config/git/credentials":                 "CANARY\n",
		"home/.config/gcloud/application_default.json": "CANARY\n",
		"home/.claude.json":                            "CANARY\n",
		"home/.gemini/oauth_creds.json":                "CANARY\n",
		"home/.databrickscfg":                          "CANARY\n",
		"home/.sentryclirc":                            "CANARY\n",
		"home/.config/ngrok/ngrok.yml":                 "CANARY\n",
		"home/.config/glab-cli/config.yml":             "CANARY\n",
		"home/.config/io.datasette.llm/keys.json":      "CANARY\n",
		"home/.fly/config.yml":                         "CANARY\n",
	}
	links := map[string]string{
		"work/environ":   "/proc/self/environ",
		"work/self":      "/proc/self",
		"work/pidlink":   "/proc/" + strconv.Itoa(os.Getpid()),
		"work/procroot":  "/proc/self/root",
		"work/procdir":   "/proc",
		"work/fd":        "/dev/fd",
		"work/stdin":     "/dev/stdin",
		"work/relproc":   "../../../../../../../../../../../../proc/self/environ",
		"work/chain1":    "chain2",
		"work/chain2":    "self/environ",
		"work/escape":    "../outside",
		"work/oldlink":   "../work-old",
		"work/abslink":   filepath.Join(root, "outside", "target.txt"),
		"work/inner":     "sub",
		"work/cargo":     "../home/.cargo/credentials.toml",
		"work/hub":       "../home/.config/hub",
		"work/azure":     "../home/.azure",
		"work/mc":        "../mchome",
		"work/mclnk":     "../mclinkhome/auth.json",
		"mclinkhome":     "mchome",
		"outside/back":   "../work",
		"work/rootedlnk": "../rooted",
	}
	writeTree(t, root, files, links)
	o = Options{
		Cwd:       filepath.Join(root, "work"),
		MCHome:    filepath.Join(root, "mclinkhome"),
		ReadRoots: []string{filepath.Join(root, "rooted")},
	}
	return root, o
}

// readRow is one spelling of one read: the tool, its path, and what must
// happen.
type readRow struct {
	tool, path string
	// refuse is a protection's refusal: never asks, whatever the mode or
	// an approval. "" when no protection applies.
	refuse string
	// outside: asks under AskOutsideReads, refused without an approval,
	// read with one. Otherwise (and refuse empty) read without asking.
	outside bool
}

func readRows() []readRow {
	pid, ppid := strconv.Itoa(os.Getpid()), strconv.Itoa(os.Getppid())
	proc := []string{
		"/proc/self/environ", "/proc/thread-self/environ", "/proc/" + pid + "/environ", "/proc/" + ppid + "/environ",
		"/proc/self/task/" + pid + "/environ", "/proc/" + pid + "/task/" + pid + "/environ",
		"/proc/self/root/proc/self/environ", "/proc/self/root/etc/hostname", "/proc/self/cwd/a.txt",
		"/proc/./self/environ", "/proc//self/environ", "//proc/self/environ", "/proc/self/../self/environ",
		"/proc/self/mem", "/proc/self/cmdline", "/proc/1/environ", "/proc",
		"/dev/fd/0", "/dev/fd/../fd/0", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/fd",
		"environ", "self/environ", "self", "pidlink/environ", "procroot/etc/hostname", "procroot/proc/self/environ",
		"procdir/self/environ", "procdir", "fd/0", "stdin", "relproc", "chain1", "sub/../environ",
		"../work/environ", "ROOT/work/self/environ", "../../../../../../../../../../proc/self/environ",
	}
	creds := []string{
		"ROOT/home/.cargo/credentials.toml", "ROOT/home/.cargo/credentials", "ROOT/home/.config/hub",
		"ROOT/home/.config/gh/hosts.yml", "ROOT/home/.azure/msal_token_cache.json",
		"ROOT/home/.terraform.d/credentials.tfrc.json", "ROOT/home/.docker/config.json", "ROOT/home/.kube/config",
		"ROOT/home/.npmrc", "ROOT/home/.pypirc", "ROOT/home/.git-credentials", "ROOT/home/.aws/credentials",
		"ROOT/home/.config/gcloud/access_tokens.db", "ROOT/home/.config/gcloud/legacy_credentials/x/a",
		"ROOT/home/.local/share/keyrings/login.keyring", "ROOT/home/.config/github-copilot/hosts.json",
		"ROOT/home/.claude/.credentials.json", "ROOT/home/.m2/settings.xml", "ROOT/home/.ssh/id_ed25519",
		"ROOT/home/.gnupg/private-keys-v1.d/k.key", "ROOT/home/.password-store/site.gpg", "ROOT/home/.config/op/config",
		"ROOT/home/.oci/config", "ROOT/home/.vault-token", "ROOT/home/.cache/huggingface/token",
		"ROOT/home/.config/rclone/rclone.conf", "ROOT/home/.gradle/gradle.properties", "ROOT/home/.my.cnf",
		"ROOT/home/.s3cfg", "ROOT/home/.terraformrc", "ROOT/home/.yarnrc.yml", "ROOT/home/.config/containers/auth.json",
		"ROOT/home/.gem/credentials", "ROOT/home/.config/git/credentials", "ROOT/home/.config/gcloud/application_default.json",
		"ROOT/home/.claude.json", "ROOT/home/.gemini/oauth_creds.json", "ROOT/home/.databrickscfg", "ROOT/home/.sentryclirc",
		"ROOT/home/.config/ngrok/ngrok.yml", "ROOT/home/.config/glab-cli/config.yml", "ROOT/home/.config/io.datasette.llm/keys.json",
		"ROOT/home/.fly/config.yml",
		"cargo", "hub", "azure/msal_token_cache.json", "../home/.cargo/credentials.toml",
		// MC_HOME, as configured (a link), as the directory it names, and through workspace links.
		"ROOT/mclinkhome/auth.json", "ROOT/mchome/auth.json", "ROOT/mchome/sessions/s.jsonl", "mc/auth.json", "mclnk",
		"ROOT/mchome/../mchome/auth.json", "ROOT/outside/../mchome/auth.json",
	}
	credDirs := []string{"ROOT/home/.ssh", "ROOT/home/.azure", "ROOT/home/.config/gcloud", "ROOT/mchome", "ROOT/mclinkhome", "mc", "azure", "ROOT/mchome/sessions"}
	outside := []string{
		"../outside/target.txt", "ROOT/outside/target.txt", "escape/target.txt", "abslink", "sub/../../outside/target.txt",
		"ROOT/work-old/secret.txt", "../work-old/secret.txt", "oldlink/secret.txt", "ROOT/work/../work-old/secret.txt",
		"ROOT//work-old/secret.txt", "ROOT/work/./../work-old/./secret.txt", "inner/../../outside/target.txt",
		"ROOT/rooted-2/r.txt", "/etc/hostname", "ROOT/work/escape/target.txt",
	}
	outsideDirs := []string{"..", "ROOT", "ROOT/work-old", "oldlink", "escape", "ROOT/rooted-2", "ROOT/work/.."}
	inside := []string{
		"a.txt", "./a.txt", "ROOT/work/a.txt", "sub/../a.txt", "inner/b.txt", "ROOT/work/./sub/b.txt", "ROOT/outside/back/a.txt",
		"escape/back/a.txt", "ROOT/rooted/r.txt", "rootedlnk/r.txt", "ROOT/rooted/../rooted/r.txt",
	}
	insideDirs := []string{".", "sub", "inner", "ROOT/work", "ROOT/outside/back", "ROOT/rooted", "rootedlnk", "sub/.."}
	var rows []readRow
	for _, p := range proc {
		for _, tool := range []string{"read_file", "grep", "list_dir"} {
			rows = append(rows, readRow{tool: tool, path: p, refuse: RefusedProcess})
		}
	}
	for _, p := range creds {
		rows = append(rows, readRow{tool: "read_file", path: p, refuse: RefusedCredentialRead},
			readRow{tool: "grep", path: p, refuse: RefusedCredentialRead})
	}
	for _, p := range credDirs {
		rows = append(rows, readRow{tool: "grep", path: p, refuse: RefusedCredentialRead},
			readRow{tool: "list_dir", path: p, refuse: RefusedCredentialRead})
	}
	for _, p := range outside {
		rows = append(rows, readRow{tool: "read_file", path: p, outside: true}, readRow{tool: "grep", path: p, outside: true})
	}
	for _, p := range outsideDirs {
		rows = append(rows, readRow{tool: "grep", path: p, outside: true}, readRow{tool: "list_dir", path: p, outside: true})
	}
	// Too big to walk in a test: listed only.
	for _, p := range []string{"/", "/etc", "/dev", "/sys"} {
		rows = append(rows, readRow{tool: "list_dir", path: p, outside: true})
	}
	for _, p := range inside {
		rows = append(rows, readRow{tool: "read_file", path: p}, readRow{tool: "grep", path: p})
	}
	for _, p := range insideDirs {
		rows = append(rows, readRow{tool: "grep", path: p}, readRow{tool: "list_dir", path: p})
	}
	return rows
}

// readArgs is the JSON arguments of a row's call.
func readArgs(tool, path string) json.RawMessage {
	args := map[string]string{"path": path}
	if tool == "grep" {
		args["pattern"] = "CANARY|PATH="
	}
	b, _ := json.Marshal(args)
	return b
}

// TestReadBoundary runs every spelling of every read rule through the three
// read tools, in both modes: under AskOutsideReads (approval = "ask") and
// without (approval = "auto"), with and without the approval mark. A
// protection refuses with its fixed reason and never asks; a path outside
// the workspace and the read roots asks under ask, is refused without an
// approval and read with one; a path inside never asks and is read.
func TestReadBoundary(t *testing.T) {
	root, base := readTree(t)
	for _, row := range readRows() {
		path := strings.ReplaceAll(row.path, "ROOT", root)
		args := readArgs(row.tool, path)
		for _, ask := range []bool{true, false} {
			o := base
			o.AskOutsideReads = ask
			tl, _ := Builtin(o).Get(row.tool)
			force, why := tl.(ForceApprover).ForceApproval(args)
			wantForce := ask && row.outside
			if force != wantForce || (force && why != ReasonReadOutside) {
				t.Errorf("%s(%s) ask=%v: ForceApproval = %v %q; want %v", row.tool, row.path, ask, force, why, wantForce)
			}
			ctxs := map[string]context.Context{
				"plain":    context.Background(),
				"approved": WithApproved(context.Background(), row.tool, args),
				// The mark of another call (a program or subagent nested
				// in an approved call) covers nothing.
				"other": WithApproved(context.Background(), row.tool, readArgs(row.tool, path+"/..")),
			}
			for name, ctx := range ctxs {
				res := tl.Run(ctx, args)
				want := row.refuse
				if row.outside && (!ask || name != "approved") {
					want = RefusedOutsideRead
				}
				if want != "" {
					if res.Text != want || !res.IsError || res.Summary != row.tool+": "+want {
						t.Errorf("%s(%s) ask=%v %s = %+v; want refusal %q", row.tool, row.path, ask, name, res, want)
					}
					continue
				}
				if res.IsError {
					t.Errorf("%s(%s) ask=%v %s = %+v; want it read", row.tool, row.path, ask, name, res)
				}
				if strings.Contains(res.Text, "PATH=") {
					t.Errorf("%s(%s) ask=%v %s handed out an environment: %.200q", row.tool, row.path, ask, name, res.Text)
				}
				// A walk outside, once allowed, still skips the credential
				// stores and MC_HOME below it.
				if row.tool == "grep" && (strings.Contains(res.Text, "home/") || strings.Contains(res.Text, "mchome")) {
					t.Errorf("%s(%s) ask=%v %s searched credentials: %q", row.tool, row.path, ask, name, res.Text)
				}
			}
		}
	}
}

// The grep walk of the workspace never follows its links: into /proc, out
// of the workspace, or to credentials. Only the two files that lie inside
// match.
func TestGrepWalkStaysInside(t *testing.T) {
	_, o := readTree(t)
	for _, ask := range []bool{true, false} {
		o.AskOutsideReads = ask
		tl, _ := Builtin(o).Get("grep")
		for _, ctx := range []context.Context{context.Background(), WithApproved(context.Background(), "grep", readArgs("grep", "."))} {
			res := tl.Run(ctx, readArgs("grep", "."))
			if want := "a.txt:1:inside CANARY\nsub/b.txt:1:bee CANARY\n"; res.Text != want || res.IsError {
				t.Errorf("grep . = %+v; want %q", res, want)
			}
		}
	}
}

// A file on procfs is refused by its file system, whatever its path: the
// check that stands when procfs is mounted somewhere procPath does not
// name.
func TestOnProcFS(t *testing.T) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skip("no /proc here:", err)
	}
	defer f.Close()
	if !onProcFS(f) {
		t.Error("onProcFS(/proc/self/status) = false")
	}
	if bad := fileChecked(f); bad != RefusedProcess {
		t.Errorf("fileChecked(/proc/self/status) = %q; want %q", bad, RefusedProcess)
	}
	g, err := os.Open(filepath.Join(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if onProcFS(g) {
		t.Error("onProcFS(a temp directory) = true")
	}
}

// openChild never follows a symlink: a directory swapped for a link to
// /proc or outside while grep walks is not entered.
func TestOpenChildNoFollow(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink("/proc/self", filepath.Join(dir, "d")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/hostname", filepath.Join(dir, "f")); err != nil {
		t.Fatal(err)
	}
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, tc := range []struct {
		name string
		dir  bool
	}{{"d", true}, {"d", false}, {"f", false}} {
		if f, err := openChild(d, tc.name, tc.dir); err == nil {
			f.Close()
			t.Errorf("openChild(%s, dir=%v) followed the link", tc.name, tc.dir)
		}
	}
}
