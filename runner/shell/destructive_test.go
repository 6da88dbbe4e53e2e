package shell

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

const (
	testCwd  = "/work/proj"
	testHome = "/home/user"
)

// at is the place of the table tests: a workspace, HOME and TMPDIR that
// need not exist.
var at = Place{Cwd: testCwd, Env: []string{"PATH=/usr/bin:/bin", "HOME=" + testHome, "TMPDIR=/tmp"}}

func TestDestructivePositives(t *testing.T) {
	tests := []struct {
		cmd  string
		want Reason
	}{
		// Recursive deletes of the root, home and workspace, spelled many ways.
		{"rm -rf /", ReasonDeleteOutside},
		{"rm -rf /*", ReasonDeleteOutside},
		{"rm  -fr   /", ReasonDeleteOutside},
		{"rm -r -f /", ReasonDeleteOutside},
		{"rm -R /", ReasonDeleteOutside},
		{"rm --recursive --force /", ReasonDeleteOutside},
		{"rm -rf -- /", ReasonDeleteOutside},
		{"rm / -rf", ReasonDeleteOutside},
		{"sudo rm -rf /", ReasonDeleteOutside},
		{"sudo -u root -E rm -rf /", ReasonDeleteOutside},
		{"doas rm -rf /", ReasonDeleteOutside},
		{`"rm" "-rf" "/"`, ReasonDeleteOutside},
		{`r''m -rf '/'`, ReasonDeleteOutside},
		{`\rm -rf /`, ReasonDeleteOutside},
		{"/bin/rm -rf /", ReasonDeleteOutside},
		{"rm -rf ~", ReasonDeleteOutside},
		{"rm -rf ~/", ReasonDeleteOutside},
		{"rm -rf ~/*", ReasonDeleteOutside},
		{`rm -rf "$HOME"`, ReasonDeleteOutside},
		{"rm -rf ${HOME}/", ReasonDeleteOutside},
		{"rm -rf ~root", ReasonDeleteOutside},
		{"rm -rf /home/someone", ReasonDeleteOutside},
		{"rm -rf .", ReasonDeleteWorkspace},
		{"rm -rf ./", ReasonDeleteWorkspace},
		{"rm -rf *", ReasonDeleteWorkspace},
		{"rm -rf ./*", ReasonDeleteWorkspace},
		{"rm -rf .* *", ReasonDeleteWorkspace},
		{"rm -rf ..", ReasonDeleteOutside},
		{"rm -rf /work/proj", ReasonDeleteWorkspace},
		{"rm -rf /work/proj/", ReasonDeleteWorkspace},
		{"rm -rf $PWD", ReasonDeleteWorkspace},
		{"rm -rf \"$(pwd)\"", ReasonDeleteWorkspace},
		{"rm -rf `pwd`/*", ReasonDeleteWorkspace},
		{"rm -rf /usr", ReasonDeleteOutside},
		{"rm -rf /etc/", ReasonDeleteOutside},
		{"rm -rf .git", ReasonDeleteGit},
		{"rm -rf sub/.git/", ReasonDeleteGit},
		{`rm -rf "$DIR/"`, ReasonDeleteOutside},
		{`rm -rf $BUILD/*`, ReasonDeleteOutside},
		{"rm -r --no-preserve-root /tmp/x", ReasonDeleteOutside},
		{"cd / && rm -rf *", ReasonDeleteOutside},
		{"cd ~; rm -rf *", ReasonDeleteOutside},
		{"cd; rm -rf .", ReasonDeleteOutside},
		{"cd .. && rm -rf -- *", ReasonDeleteOutside},
		{"echo start; rm -rf /", ReasonDeleteOutside},
		{"true && rm -rf / || echo failed", ReasonDeleteOutside},
		{"ls | rm -rf ~", ReasonDeleteOutside},
		{"sleep 1 & rm -rf ~", ReasonDeleteOutside},
		{"(cd /tmp; rm -rf /)", ReasonDeleteOutside},
		{"{ rm -rf /; }", ReasonDeleteOutside},
		{"if true; then rm -rf /; fi", ReasonDeleteOutside},
		{"echo $(rm -rf /)", ReasonDeleteOutside},
		{"echo `rm -rf ~`", ReasonDeleteOutside},
		{"x=$(echo hi) rm -rf /", ReasonDeleteOutside},
		{"FOO=1 BAR=2 nice -n 10 nohup rm -rf /", ReasonDeleteOutside},
		{"env -i PATH=/bin rm -rf /", ReasonDeleteOutside},
		{"timeout 5 rm -rf /", ReasonDeleteOutside},
		{"timeout -s KILL 5s rm -rf /", ReasonDeleteOutside},
		{"command rm -rf /", ReasonDeleteOutside},
		{"exec rm -rf /", ReasonDeleteOutside},
		{"xargs rm -rf /", ReasonDeleteOutside},
		{`sh -c "rm -rf /"`, ReasonDeleteOutside},
		{`bash -lc 'cd / && rm -rf *'`, ReasonDeleteOutside},
		{`bash -c "sh -c 'rm -rf ~'"`, ReasonDeleteOutside},
		{`eval "rm -rf /"`, ReasonDeleteOutside},
		{"bash <<EOF\nrm -rf /\nEOF\n", ReasonDeleteOutside},
		{"echo ok\nrm -rf /", ReasonDeleteOutside},
		{"rm -rf \\\n  /", ReasonDeleteOutside},
		{"rm -rf /tmp/../", ReasonDeleteOutside},
		{"rm -rf ~/..", ReasonDeleteOutside},
		{"pushd /; rm -rf *; popd", ReasonDeleteOutside},
		{"rm -rf ~+", ReasonDeleteWorkspace},
		{"cd /work && rm -rf proj", ReasonDeleteWorkspace},
		{`sudo bash -c "$(echo x); rm -rf /"`, ReasonOpaque},
		// find.
		{"find . -delete", ReasonDeleteWorkspace},
		{"find / -delete", ReasonDeleteOutside},
		{"find ~ -type f -delete", ReasonDeleteOutside},
		{"find . -mindepth 1 -delete", ReasonDeleteWorkspace},
		{"find . -name '*' -delete", ReasonDeleteWorkspace},
		{"find / -exec rm -rf {} \\;", ReasonDeleteOutside},
		{"find -delete", ReasonDeleteWorkspace},
		// chmod / chown.
		{"chmod -R 777 /", ReasonPermOutside},
		{"sudo chown -R nobody ~", ReasonPermOutside},
		{"chmod -R 000 .", ReasonPermWorkspace},
		// git.
		{"git push --force", ReasonGitPush},
		{"git push -f origin main", ReasonGitPush},
		{"git push origin main --force", ReasonGitPush},
		{"git push -uf origin main", ReasonGitPush},
		{"git push --force-with-lease", ReasonGitPush},
		{"git push --force-with-lease=main:abc origin main", ReasonGitPush},
		{"git push origin +main", ReasonGitPush},
		{"git -C sub push --force", ReasonGitPush},
		{"git -c push.default=current push -f", ReasonGitPush},
		{"git push --mirror backup", ReasonGitPush},
		{"git push origin --delete feature", ReasonGitPush},
		{"git push origin :feature", ReasonGitPush},
		{"git reset --hard HEAD~3", ReasonGitReset},
		{"git -C /elsewhere clean -fdx", ReasonDeleteOutside},
		{"git --work-tree=.. clean --force -d", ReasonDeleteOutside},
		// Disks.
		{"mkfs /dev/sda1", ReasonDisk},
		{"mkfs.ext4 /dev/sdb", ReasonDisk},
		{"sudo mkfs.xfs -f /dev/nvme0n1p2", ReasonDisk},
		{"mkswap /dev/sdb2", ReasonDisk},
		{"wipefs -a /dev/sda", ReasonDisk},
		{"dd if=/dev/zero of=/dev/sda bs=1M", ReasonDisk},
		{"sudo dd if=image.iso of=/dev/disk2", ReasonDisk},
		{"cat image > /dev/sda", ReasonDisk},
		{"echo x >/dev/nvme0n1", ReasonDisk},
		{"shred -n 1 /dev/sdb", ReasonDisk},
		{"diskutil eraseDisk APFS X disk2", ReasonDisk},
		// Processes and machine.
		{"kill -9 -1", ReasonKillAll},
		{"kill -KILL -- -1", ReasonKillAll},
		{"kill -9 -01", ReasonKillAll}, {`kill -9 " -1"`, ReasonKillAll}, {`kill -s KILL "-1 "`, ReasonKillAll},
		{"kill -n 9 -001", ReasonKillAll},
		{"wipefs --all /dev/sda", ReasonDisk}, {"wipefs --a /dev/sda", ReasonDisk}, {"wipefs -fa /dev/sda", ReasonDisk},
		{"sudo reboot", ReasonShutdown},
		{"shutdown -h now", ReasonShutdown},
		// Fork bombs.
		{":(){ :|:& };:", ReasonForkBomb},
		{":() { : | : & } ; :", ReasonForkBomb},
		{"bomb() { bomb | bomb & }; bomb", ReasonForkBomb},
		{"function f { f|f & }; f", ReasonForkBomb},
		// Nesting past the bound.
		{strings.Repeat("$(", 40) + "true" + strings.Repeat(")", 40), ReasonTooDeep},
	}
	for _, tc := range tests {
		got, why := Destructive(tc.cmd, at)
		if !got || why != tc.want {
			t.Errorf("Destructive(%q) = %v, %q; want true, %q", tc.cmd, got, why, tc.want)
		}
	}
}

func TestDestructiveNegatives(t *testing.T) {
	tests := []string{
		"rm -rf ./build",
		"rm -rf build dist",
		"rm -rf node_modules",
		"rm -rf /tmp/build-123",
		"rm -rf build/*",
		"rm -rf *.o",
		"rm -rf ./dist/*.js",
		"rm -f *",
		"rm /",
		"rm -f ~/.bashrc.bak",
		`rm -rf '*'`,
		`rm -rf '~'`,
		"rm -rf $TMPDIR/foo",
		"cd build && rm -rf *",
		"cd /tmp/x && rm -rf ./*",
		"echo rm -rf /",
		`echo "rm -rf /"`,
		`printf '%s\n' 'rm -rf ~'`,
		"# rm -rf /",
		"ls # rm -rf /",
		"cat <<EOF\nrm -rf /\nEOF\n",
		"grep -r 'rm -rf /' .",
		"grep mkfs /etc/fstab",
		"grep -rn 'git push --force' docs",
		`git commit -m "do not git push --force"`,
		"man mkfs",
		"which mkfs.ext4",
		"command -v rm",
		"git push",
		"git push origin main",
		"git push -u origin feature",
		"git push --follow-tags",
		"git push --tags origin",
		"git pull --force",
		"git fetch --prune",
		"git reset --soft HEAD~1",
		"git reset HEAD file.go",
		"git clean -n",
		"git clean -fn",
		"git rm -r --cached build",
		"find . -name '*.o' -delete",
		"find . -type d -name node_modules -exec rm -rf {} +",
		"find /tmp/x -delete",
		"find . -mtime +30 -delete",
		"find . -type f -name '*.log' -exec rm {} \\;",
		"find / -name passwd",
		"chmod -R 755 ./scripts",
		"chmod 777 /",
		"chown -R me build",
		"dd if=/dev/zero of=./disk.img bs=1M count=10",
		"dd if=/dev/urandom of=/dev/null count=1",
		"echo hi > /dev/null",
		"cmd 2>/dev/null >/dev/stderr",
		"echo hi >&2",
		"cat /dev/sda | head -c 10",
		"mkfs",
		"mkfs.ext4 --help",
		"wipefs /dev/sda",
		"kill -9 1234",
		"kill -9 -10",
		"kill -1 1234",
		"pkill -f server",
		"f() { echo hi; }; f",
		"foo() { foo | bar; }",
		"systemctl status",
		"sh script.sh",
		"bash -c 'rm -rf ./build'",
		`sh -c "echo rm -rf /"`,
		"ls -la",
		"go test ./...",
		"rmdir empty",
		"npm run format",
		"",
	}
	for _, cmd := range tests {
		if got, why := Destructive(cmd, at); got {
			t.Errorf("Destructive(%q) = true, %q; want false", cmd, why)
		}
	}
}

// Without a known cwd or home, every recursive delete asks.
func TestDestructiveUnknownPlaces(t *testing.T) {
	tests := []struct {
		cmd  string
		want bool
	}{
		{"rm -rf ~", true},
		{"rm -rf .", true},
		{"rm -rf *", true},
		{"rm -rf build", true},
		{"rm -rf ~/.cache", true},
		{"ls build", false},
		{"rm -rf /", true},
	}
	for _, tc := range tests {
		if got, why := Destructive(tc.cmd, Place{}); got != tc.want {
			t.Errorf("Destructive(%q, no cwd, no home) = %v, %q; want %v", tc.cmd, got, why, tc.want)
		}
	}
}

func BenchmarkDestructive(b *testing.B) {
	for _, cmd := range []string{
		"go test ./... && git status",
		`cd build && find . -name '*.o' -exec rm -f {} + ; sh -c "make -j4 all" 2>&1 | tee log.txt`,
	} {
		b.Run(strconv.Itoa(len(cmd))+"B", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Destructive(cmd, at)
			}
		})
	}
}

// FuzzDestructive: no input panics or runs away; a reason is always one of
// Reasons; a command line bash cannot parse asks, as unparsable.
func FuzzDestructive(f *testing.F) {
	for _, s := range []string{"rm -rf /", "echo $(a `b` \"c\")", "cat <<-X\n\tq\n\tX\n", "${a:?}/*", "$'\\x'", "~+/x", ":(){ :|:& };:",
		"rm -rf {a,b{c,d}}", "bash -c 'rm -rf $\"$HOME/x\"'", "rm -rf <(true) ~/x", "f() { rm -rf \"$1\"; }; f ~", "alias x='rm -rf'; x ~",
		"python3 -c 'import shutil'", "find . -exec sh -c 'rm -rf {}' \\;", "env -S 'rm -rf' ~", "bash <<< 'rm -rf ~'", "rm -rf ${x:-$(y)}", "if (("} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		bad, why := Destructive(s, at)
		if bad != (why != "") || (bad && !slices.Contains(Reasons(), why)) {
			t.Fatalf("Destructive(%q) = %v, %q", s, bad, why)
		}
		if parse(s) == nil && why != ReasonUnparsable {
			t.Fatalf("Destructive(%q) = %v, %q; does not parse", s, bad, why)
		}
	})
}
