package shell

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRuleEdges: the boundaries of the rules' own bookkeeping, each row
// written for a mutant that lived (docs/testing.md, runner/shell): missing
// operands, the glob and match bounds at exactly their limit, nesting at
// exactly maxDepth, a home directory equal to the temp directory, a
// workspace named through a link, a missing directory before "..", a link
// whose target is another link, the directory an if or a loop leaves.
func TestRuleEdges(t *testing.T) {
	l, at := newLayout(t)
	many := filepath.Join(l.ws, "many")
	if err := os.MkdirAll(many, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range maxMatches {
		if err := os.WriteFile(filepath.Join(many, strconv.Itoa(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// l1 -> sub2/l2 -> ../../canary: a link to a link out of the workspace.
	if err := os.MkdirAll(filepath.Join(l.ws, "sub2"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"l1": "sub2/l2", "sub2/l2": "../../canary"} {
		if err := os.Symlink(target, filepath.Join(l.ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	nested := func(n int) string { return strings.Repeat("$(echo ", n) + "x" + strings.Repeat(")", n) }
	for _, tc := range []struct {
		cmd  string
		want Reason
	}{
		{"rsync --delete", ""}, {"rsync -a --remove-source-files", ""}, {"mv", ""}, {"mv ./a ~/b", ""},
		{"find -L", ""}, {"find . -name", ""}, {"find . -name x -exec echo {} \\; -exec rm -rf ~/canary \\;", ReasonDeleteOutside},
		{"rm -rf" + strings.Repeat(" build/*", maxGlobs), ""},
		{"rm -rf" + strings.Repeat(" build/*", maxGlobs+1), ReasonDeleteOutside},
		{"rm -rf many/*", ""}, // exactly maxMatches entries
		{"rm -rf missing/..", ReasonDeleteWorkspace}, {"rm -rf missing/../build", ""},
		{"rm -rf l1/", ReasonDeleteOutside}, {"rm -rf l1/sub", ReasonDeleteOutside},
		{"echo " + nested(maxDepth), ""}, {"echo " + nested(maxDepth+1), ReasonTooDeep},
		// Steps: the statement, the word echo, each brace word, the
		// command: K+3, at exactly maxSteps and one past.
		{"echo {1.." + strconv.Itoa(maxSteps-3) + "}", ""}, {"echo {1.." + strconv.Itoa(maxSteps-2) + "}", ReasonTooDeep},
		{strings.Repeat("echo $(true); ", 2*maxDepth), ""},
		{"if true; then cd ~; fi; rm -rf *", ReasonDeleteOutside},
		{"for d in a b; do rm -rf ./*.o; cd ..; done", ReasonDeleteOutside},
		{`: ${TMPDIR=~}; rm -rf $TMPDIR/canary`, ReasonDeleteOutside},
		{`n=TMP; n+=DIR; read "$n" <<< ~; rm -rf $TMPDIR/canary`, ReasonDeleteOutside},
		{"f() { f |& f & }; f", ReasonForkBomb}, {"f() { x=1 | f & }; f", ""},
		{"find -L . -name '*.o' -exec rm {} +", ReasonDeleteOutside}, {"find . -regex '\\.*.*' -delete", ReasonDeleteWorkspace},
		{"diskutil partitionDisk disk2 GPT JHFS+ x 0b", ReasonDisk}, {"diskutil zeroDisk disk2", ReasonDisk},
		{"diskutil secureErase 0 disk2", ReasonDisk}, {"diskutil reformat disk2", ReasonDisk},
		{"diskutil eraseVolume APFS x disk2s1", ReasonDisk},
		// Rows for the case clauses planted by hand (docs/testing.md).
		{"cd; rm -rf proj/build", ""}, {"cd - && rm -rf *", ReasonDeleteOutside}, {"cd ./b* && rm -rf *", ReasonDeleteOutside},
		{"cmake -E rm -f ~/canary/x", ""}, {`rm "$X" -r ./build`, ReasonDeleteOutside}, {"rm -f -- -rf ~/canary", ""}, {"find . -type f $ACTION", ReasonDeleteWorkspace},
		{"find . -follow -name '*.o' -delete", ReasonDeleteOutside}, {"find . -regex '(.*' -delete", ""},
		{"find . -delete -name '*.o'", ReasonDeleteWorkspace}, {"find . -exec rm {} + -name '*.o'", ReasonDeleteWorkspace},
		{"find . -delete -empty", ReasonDeleteWorkspace},
		{"chmod $OPTS 777 ~/canary", ReasonPermOutside}, {"shred -u ./secret.txt", ""}, {"rm -rf [a-z]*", ReasonDeleteWorkspace}, {"diskutil", ""}, {"diskutil list", ""}, {"kill", ""},
	} {
		got, why := Destructive(tc.cmd, at)
		if got != (tc.want != "") || why != tc.want {
			t.Errorf("Destructive(%.80q) = %v, %q; want %q", tc.cmd, got, why, tc.want)
		}
	}
	if err := os.WriteFile(filepath.Join(many, "one-more"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, why := Destructive("rm -rf many/*", at); why != ReasonDeleteOutside {
		t.Errorf("rm -rf many/* over maxMatches entries = %v, %q; want %q", got, why, ReasonDeleteOutside)
	}
	// HOME is the temp directory: home wins, ~/canary is outside.
	same := Place{Cwd: l.ws, Env: []string{"HOME=" + l.home, "TMPDIR=" + l.home}}
	if got, why := Destructive("rm -rf ~/canary", same); why != ReasonDeleteOutside {
		t.Errorf("HOME = TMPDIR: rm -rf ~/canary = %v, %q", got, why)
	}
	// A parent of the workspace inside the temp directory is outside.
	deep := Place{Cwd: filepath.Join(l.tmp, "a", "proj"), Env: []string{"HOME=" + l.home, "TMPDIR=" + l.tmp}}
	if got, why := Destructive("rm -rf "+filepath.Join(l.tmp, "a"), deep); why != ReasonDeleteOutside {
		t.Errorf("a parent of the workspace in TMPDIR: %v, %q", got, why)
	}
	// The workspace named through a link is the workspace by either name.
	link := filepath.Join(l.tmp, "wslink")
	if err := os.Symlink(l.ws, link); err != nil {
		t.Fatal(err)
	}
	via := Place{Cwd: link, Env: []string{"HOME=" + l.home, "TMPDIR=" + l.tmp}}
	if got, why := Destructive("rm -rf "+l.ws, via); why != ReasonDeleteWorkspace {
		t.Errorf("cwd through a link: rm -rf the real workspace = %v, %q", got, why)
	}
}
