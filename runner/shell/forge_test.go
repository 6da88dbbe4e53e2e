package shell

import "testing"

// TestForgeClients: clients other than git that rewrite or delete remote
// history ask, in the spellings they accept; their reading and ordinary
// commands do not.
func TestForgeClients(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want Reason // "" for no question
	}{
		// hub runs git: git's rules, and its own delete.
		{"hub push -f origin main", ReasonGitPush},
		{"hub push origin +main", ReasonGitPush},
		{"hub -c alias.p='push --force' p origin main", ReasonGitPush},
		{"hub reset --hard", ReasonGitReset},
		{"hub delete -y o/r", ReasonRemoteHistory},
		{"command hub push --mirror", ReasonGitPush},
		{"hub status", ""},
		// hub api sends requests as gh api does; its -t takes no argument.
		{"hub api -X DELETE repos/o/r/git/refs/heads/main", ReasonRemoteHistory},
		{"hub api -tXDELETE repos/o/r", ReasonRemoteHistory}, {"hub -C ../x api --method=PATCH repos/o/r/git/refs/heads/main", ReasonRemoteHistory},
		{"hub api repos/o/r/git/refs -F sha=x", ReasonRemoteHistory}, {"hub api -t repos/o/r/git/refs", ""},
		{"hub -c core.pager=cat api -X DELETE repos/o/r", ReasonRemoteHistory}, {"hub api repos/o/r/pulls", ""},
		// jj git push moves bookmarks however they were rewritten.
		{"jj git push", ReasonRemoteHistory},
		{"jj git push -b main", ReasonRemoteHistory},
		{"jj git push --allow-new --bookmark main", ReasonRemoteHistory},
		{"jj -R ../other git push --all", ReasonRemoteHistory},
		{"jj --config ui.color=never git push --deleted", ReasonRemoteHistory},
		{"jj git --no-pager push", ReasonRemoteHistory},
		{`jj git "$SUB"`, ReasonRemoteHistory},
		{`jj "$CMD" push`, ReasonOpaque},
		{"env jj git push", ReasonRemoteHistory},
		{"jj git push --dry-run", ""},
		{"jj git fetch", ""},
		{"jj log -r main", ""},
		{"jj -R push log", ""},
		// Sapling.
		{"sl push --force --to main", ReasonRemoteHistory},
		{"sl push --for --to main", ReasonRemoteHistory},
		{"sl push -f --to main", ReasonRemoteHistory},
		{"sl push --delete feature", ReasonRemoteHistory},
		{`sl push $OPTS --to main`, ReasonRemoteHistory},
		{"sl push --del feature", ReasonRemoteHistory}, {"sl push --de feature", ReasonRemoteHistory}, {"sl push --delete=feature", ReasonRemoteHistory},
		{"sl push --non-forward-move --to main", ReasonRemoteHistory}, {"sl push --non-f --to main", ReasonRemoteHistory},
		{"sl push -fr . --to main", ReasonRemoteHistory}, {"sl push --fo --to main", ReasonRemoteHistory},
		{"sl push --to main", ""}, {"sl push --no-verify --to main", ""},
		{"sl log -f", ""},
		// gh and glab: repo delete.
		{"gh repo delete o/r --yes", ReasonRemoteHistory},
		{"glab repo delete g/p -y", ReasonRemoteHistory},
		{`gh repo "$VERB" o/r`, ReasonRemoteHistory},
		{"gh repo view o/r", ""},
		// gh repo sync --force resets the remote branch; a release deleted
		// with its tag.
		{"gh repo sync me/fork --force", ReasonRemoteHistory},
		{"gh repo sync --force=true", ReasonRemoteHistory},
		{"gh repo sync me/fork", ""},
		{"gh release delete v1 --yes --cleanup-tag", ReasonRemoteHistory},
		{"gh release delete v1 --cleanup-tag=true", ReasonRemoteHistory},
		{"glab release delete v1 --with-tag", ReasonRemoteHistory},
		{"glab release delete v1 -t -y", ReasonRemoteHistory},
		{"glab release delete v1 --with-tag=true", ReasonRemoteHistory},
		{"gh release delete v1 --yes", ""},
		// gh api: a DELETE, or a change to a ref or branch.
		{"gh api -X DELETE repos/o/r/git/refs/heads/main", ReasonRemoteHistory},
		{"gh api -XDELETE repos/o/r/releases/1", ReasonRemoteHistory},
		{"gh api --method delete repos/o/r", ReasonRemoteHistory},
		{"gh api --method=DELETE /repos/o/r/git/refs/tags/v1", ReasonRemoteHistory},
		{"gh api repos/o/r/git/refs/heads/main -X PATCH -f sha=abc -F force=true", ReasonRemoteHistory},
		{"gh api repos/o/r/git/refs/heads/main -F sha=abc -F force=true", ReasonRemoteHistory},
		{"gh api -X PUT repos/o/r/branches/main/protection --input p.json", ReasonRemoteHistory},
		{"glab api -X DELETE projects/1/repository/branches/main", ReasonRemoteHistory},
		{"glab api --method PUT projects/1/repository/branches/main", ReasonRemoteHistory},
		{`gh api -X "$M" repos/o/r/pulls`, ReasonRemoteHistory},
		{`gh api -X PATCH "$URL"`, ReasonRemoteHistory},
		{`gh api graphql -f query='mutation { deleteRef(input: {refId: "x"}) { clientMutationId } }'`, ReasonRemoteHistory},
		{`gh api graphql -f query='mutation { updateRefs(input: {}) { clientMutationId } }'`, ReasonRemoteHistory},
		{`gh api graphql -F query=@mutation.graphql`, ReasonRemoteHistory},
		{`gh api graphql -f query="$Q"`, ReasonRemoteHistory},
		{`glab api graphql -f query='mutation { projectDelete }'`, ReasonRemoteHistory},
		{"gh api repos/o/r/pulls", ""},
		{"gh api -X GET repos/o/r/git/refs/heads/main", ""},
		{"gh api repos/o/r/issues -f title=x", ""},
		{"gh api repos/o/r/git/refs -X POST -f ref=refs/heads/new -f sha=abc", ReasonRemoteHistory},
		{`gh api graphql -f query='query { viewer { login } }'`, ""},
		// gh api's short options in any spelling pflag reads: attached
		// (-XPATCH, -fquery=...), after = (-X=DELETE), in a cluster after
		// -i (-iX DELETE, -iXDELETE); -H, -p, -q and -t take a word too.
		{"gh api -XPATCH repos/o/r/git/refs/heads/main -f sha=x", ReasonRemoteHistory},
		{"gh api -X=DELETE repos/o/r", ReasonRemoteHistory}, {"gh api -iX DELETE repos/o/r", ReasonRemoteHistory},
		{"gh api -iXDELETE repos/o/r", ReasonRemoteHistory}, {"gh api -iX=DELETE repos/o/r", ReasonRemoteHistory},
		{`gh api graphql -fquery='mutation { deleteRef(input: {}) { clientMutationId } }'`, ReasonRemoteHistory},
		{`gh api graphql -if query='mutation { deleteRef(input: {}) { clientMutationId } }'`, ReasonRemoteHistory},
		{"gh api repos/o/r/git/refs -Fsha=x", ReasonRemoteHistory}, {"gh api repos/o/r/git/refs -iFsha=x", ReasonRemoteHistory},
		{"gh api -H X-A:1 repos/o/r/git/refs -X PATCH", ReasonRemoteHistory},
		// Fields given by long option make the request a POST.
		{"gh api repos/o/r/git/refs --field ref=refs/heads/x", ReasonRemoteHistory},
		{"gh api repos/o/r/git/refs --raw-field=sha=x", ReasonRemoteHistory},
		{"gh api repos/o/r/git/refs/heads/main --input body.json", ReasonRemoteHistory},
		{"glab api projects/1/repository/branches --form branch=x", ReasonRemoteHistory},
		{`gh api graphql --raw-field query='mutation { deleteRef(input: {}) { clientMutationId } }'`, ReasonRemoteHistory},
		{`gh api graphql --field=query='mutation { deleteRef(input: {}) { clientMutationId } }'`, ReasonRemoteHistory},
		{"gh api repos/o/r/issues --field title=x", ""},
		{"gh api -i repos/o/r/git/refs/heads/main", ""}, {"gh api -H X-A:1 -q .ref repos/o/r/git/refs/heads/main", ""},
		{"gh api -t '{{.ref}}' -p x repos/o/r/git/refs", ""}, {"gh api -XGET repos/o/r/git/refs/heads/main", ""},
		{`gh api graphql -fquery='query { viewer { login } }'`, ""},
		// A word that may hold an option: unquoted and unknown, or "$E"
		// beside the endpoint.
		{"gh api $OPTS repos/o/r", ReasonRemoteHistory}, {"gh api repos/$O/r", ReasonRemoteHistory},
		{`gh api "$E" repos/o/r`, ReasonRemoteHistory}, {`gh api -"$X" repos/o/r`, ReasonRemoteHistory},
		{`gh api "repos/$O/r"`, ""}, {`gh api "$E"`, ""}, {`gh api -q .name "repos/$O/r"`, ""},
		// gh and glab aliases: the command an alias saves is checked when
		// it is saved.
		{"gh alias set d 'api -X DELETE repos/o/r'", ReasonRemoteHistory},
		{"gh alias set d 'api -X $1 repos/o/r'", ReasonRemoteHistory},
		{"gh alias set d 'repo delete'", ReasonRemoteHistory}, {"glab alias set d 'repo delete'", ReasonRemoteHistory},
		{"gh alias set --shell d 'rm -rf ~/canary'", ReasonDeleteOutside}, {"glab alias set -s d 'rm -rf ~/canary'", ReasonDeleteOutside},
		{"gh alias set d '!rm -rf ~/canary'", ReasonDeleteOutside}, {`gh alias set d 'api "$1'`, ReasonOpaque},
		{"gh alias import aliases.yml", ReasonOpaque}, {"gh alias set d -", ReasonOpaque},
		{`gh alias set d "$X"`, ReasonOpaque}, {`gh alias "$V" d x`, ReasonOpaque},
		{"gh alias set co 'pr checkout'", ""}, {"gh alias set --shell igrep 'gh issue list | grep x'", ""},
		{"gh alias list", ""}, {"gh alias delete co", ""}, {"gh alias set d", ""},
		{"gh pr create --fill", ""},
		{"gh pr list", ""},
		// Each client with no command word, or an unknown one.
		{"hub --version", ""}, {"jj git --help", ""}, {"sl --version", ""}, {"gh --version", ""}, {"glab", ""},
		{`gh "$CMD" list`, ReasonOpaque}, {"gh alias import", ReasonOpaque}, {`gh alias "$V"`, ReasonOpaque},
	} {
		got, reason := Destructive(tc.cmd, at)
		if got != (tc.want != "") || reason != tc.want {
			t.Errorf("Destructive(%q) = %v, %q; want %q", tc.cmd, got, reason, tc.want)
		}
	}
	// Under the OS sandbox the forges' clients write no version control
	// metadata: their commands are not Mercurial's.
	sandboxed := at
	sandboxed.GitReadOnly = true
	for _, cmd := range []string{"gh pr list", "glab mr list", "gh pr view 1", "gh api repos/o/r/pulls"} {
		if got, reason := Destructive(cmd, sandboxed); got {
			t.Errorf("under the sandbox, Destructive(%q) = %v, %q; want no question", cmd, got, reason)
		}
	}
}

// TestGitDashedCommands: git-SUB (git's exec path holds every command so,
// and external commands such as git-lfs are found so) is read as git SUB.
func TestGitDashedCommands(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want Reason
	}{
		{"/usr/lib/git-core/git-push --force origin main", ReasonGitPush},
		{"git-push -f origin main", ReasonGitPush},
		{"PATH=/usr/lib/git-core:$PATH git-push origin +main", ReasonGitPush},
		{"/usr/libexec/git-core/git-send-pack --force ../r.git main", ReasonGitPush},
		{"env git-push --mirror", ReasonGitPush},
		{"/usr/lib/git-core/git-reset --hard", ReasonGitReset},
		{"/usr/lib/git-core/git-checkout -- .", ReasonGitDiscard},
		{"git-stash drop", ReasonGitDiscard},
		{"git-clean -fdx", ReasonGitDiscard},
		{"git-", ""},
		{"/usr/lib/git-core/git-log --oneline", ""},
		{"git-status", ""},
	} {
		got, reason := Destructive(tc.cmd, at)
		if got != (tc.want != "") || reason != tc.want {
			t.Errorf("Destructive(%q) = %v, %q; want %q", tc.cmd, got, reason, tc.want)
		}
	}
}

// TestForgeCloneWritesMetadata: gh and glab commands that run git to make
// or change a repository (repo clone, repo fork, pr checkout) write
// version control metadata: under the OS sandbox they ask with the
// git-write reason and, approved, run with metadata writable (so a clone
// keeps its .git); without the sandbox they do not ask for that. Their
// reading commands do not.
func TestForgeCloneWritesMetadata(t *testing.T) {
	at := Place{Cwd: t.TempDir(), Env: []string{"HOME=/home/u"}}
	ro := at
	ro.GitReadOnly = true
	for _, cmd := range []string{"gh repo clone o/r", "glab repo clone o/r dir", "gh repo fork o/r --clone", "gh pr checkout 12", "gh pr co 12"} {
		v := Check(cmd, ro)
		if v.Why != ReasonGitWrite || !v.WritesMetadata {
			t.Errorf("GitReadOnly: Check(%q) = %+v; want %q and WritesMetadata", cmd, v, ReasonGitWrite)
		}
		if v := Check(cmd, at); v.Why != "" || v.WritesMetadata {
			t.Errorf("without the sandbox: Check(%q) = %+v; want nothing", cmd, v)
		}
	}
	for _, cmd := range []string{"gh repo view o/r", "gh pr list", "glab repo list", "gh pr view 12"} {
		if v := Check(cmd, ro); v.Why != "" || v.WritesMetadata {
			t.Errorf("GitReadOnly: Check(%q) = %+v; want nothing", cmd, v)
		}
	}
}
