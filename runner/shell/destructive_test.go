package shell

import (
	"strconv"
	"strings"
	"testing"
)

const (
	testCwd  = "/work/proj"
	testHome = "/home/user"
)

func TestDestructivePositives(t *testing.T) {
	tests := []struct {
		cmd  string
		want string // reason
	}{
		// Recursive deletes of the root, home and workspace, spelled many ways.
		{"rm -rf /", "recursive delete of the root directory"},
		{"rm -rf /*", "recursive delete of everything in the root directory"},
		{"rm  -fr   /", "recursive delete of the root directory"},
		{"rm -r -f /", "recursive delete of the root directory"},
		{"rm -R /", "recursive delete of the root directory"},
		{"rm --recursive --force /", "recursive delete of the root directory"},
		{"rm -rf -- /", "recursive delete of the root directory"},
		{"rm / -rf", "recursive delete of the root directory"},
		{"sudo rm -rf /", "recursive delete of the root directory"},
		{"sudo -u root -E rm -rf /", "recursive delete of the root directory"},
		{"doas rm -rf /", "recursive delete of the root directory"},
		{`"rm" "-rf" "/"`, "recursive delete of the root directory"},
		{`r''m -rf '/'`, "recursive delete of the root directory"},
		{`\rm -rf /`, "recursive delete of the root directory"},
		{"/bin/rm -rf /", "recursive delete of the root directory"},
		{"rm -rf ~", "recursive delete of the home directory"},
		{"rm -rf ~/", "recursive delete of the home directory"},
		{"rm -rf ~/*", "recursive delete of everything in the home directory"},
		{`rm -rf "$HOME"`, "recursive delete of the home directory"},
		{"rm -rf ${HOME}/", "recursive delete of the home directory"},
		{"rm -rf ~root", "recursive delete of a home directory"},
		{"rm -rf /home/someone", "recursive delete of a home directory"},
		{"rm -rf .", "recursive delete of the workspace"},
		{"rm -rf ./", "recursive delete of the workspace"},
		{"rm -rf *", "recursive delete of everything in the workspace"},
		{"rm -rf ./*", "recursive delete of everything in the workspace"},
		{"rm -rf .* *", "recursive delete of everything in the workspace"},
		{"rm -rf ..", "recursive delete of a parent of the workspace"},
		{"rm -rf /work/proj", "recursive delete of the workspace"},
		{"rm -rf /work/proj/", "recursive delete of the workspace"},
		{"rm -rf $PWD", "recursive delete of the workspace"},
		{"rm -rf \"$(pwd)\"", "recursive delete of the workspace"},
		{"rm -rf `pwd`/*", "recursive delete of everything in the workspace"},
		{"rm -rf /usr", "recursive delete of a system directory"},
		{"rm -rf /etc/", "recursive delete of a system directory"},
		{"rm -rf .git", "recursive delete of a .git directory"},
		{"rm -rf sub/.git/", "recursive delete of a .git directory"},
		{`rm -rf "$DIR/"`, "recursive delete of the root directory if a variable is empty"},
		{`rm -rf $BUILD/*`, "recursive delete of the root directory if a variable is empty"},
		{"rm -r --no-preserve-root /tmp/x", "rm --no-preserve-root"},
		{"cd / && rm -rf *", "recursive delete of everything in the root directory"},
		{"cd ~; rm -rf *", "recursive delete of everything in the home directory"},
		{"cd; rm -rf .", "recursive delete of the home directory"},
		{"cd .. && rm -rf -- *", "recursive delete of everything in a parent of the workspace"},
		{"echo start; rm -rf /", "recursive delete of the root directory"},
		{"true && rm -rf / || echo failed", "recursive delete of the root directory"},
		{"ls | rm -rf ~", "recursive delete of the home directory"},
		{"sleep 1 & rm -rf ~", "recursive delete of the home directory"},
		{"(cd /tmp; rm -rf /)", "recursive delete of the root directory"},
		{"{ rm -rf /; }", "recursive delete of the root directory"},
		{"if true; then rm -rf /; fi", "recursive delete of the root directory"},
		{"echo $(rm -rf /)", "recursive delete of the root directory"},
		{"echo `rm -rf ~`", "recursive delete of the home directory"},
		{"x=$(echo hi) rm -rf /", "recursive delete of the root directory"},
		{"FOO=1 BAR=2 nice -n 10 nohup rm -rf /", "recursive delete of the root directory"},
		{"env -i PATH=/bin rm -rf /", "recursive delete of the root directory"},
		{"timeout 5 rm -rf /", "recursive delete of the root directory"},
		{"timeout -s KILL 5s rm -rf /", "recursive delete of the root directory"},
		{"command rm -rf /", "recursive delete of the root directory"},
		{"exec rm -rf /", "recursive delete of the root directory"},
		{"xargs rm -rf /", "recursive delete of the root directory"},
		{`sh -c "rm -rf /"`, "recursive delete of the root directory"},
		{`bash -lc 'cd / && rm -rf *'`, "recursive delete of everything in the root directory"},
		{`bash -c "sh -c 'rm -rf ~'"`, "recursive delete of the home directory"},
		{`eval "rm -rf /"`, "recursive delete of the root directory"},
		{"bash <<EOF\nrm -rf /\nEOF\n", "recursive delete of the root directory"},
		{"echo ok\nrm -rf /", "recursive delete of the root directory"},
		{"rm -rf \\\n  /", "recursive delete of the root directory"},
		{"rm -rf /tmp/../", "recursive delete of the root directory"},
		{"rm -rf ~/..", "recursive delete of a parent of the home directory"},
		{"pushd /; rm -rf *; popd", "recursive delete of everything in the root directory"},
		{"rm -rf ~+", "recursive delete of the workspace"},
		{"cd /work && rm -rf proj", "recursive delete of the workspace"},
		{`sudo bash -c "$(echo x); rm -rf /"`, "recursive delete of the root directory"},
		// find.
		{"find . -delete", "find deletes the workspace"},
		{"find / -delete", "find deletes the root directory"},
		{"find ~ -type f -delete", "find deletes the home directory"},
		{"find . -mindepth 1 -delete", "find deletes the workspace"},
		{"find . -name '*' -delete", "find deletes the workspace"},
		{"find / -exec rm -rf {} \\;", "find deletes the root directory"},
		{"find -delete", "find deletes the workspace"},
		// chmod / chown.
		{"chmod -R 777 /", "recursive permission change of the root directory"},
		{"sudo chown -R nobody ~", "recursive permission change of the home directory"},
		{"chmod -R 000 .", "recursive permission change of the workspace"},
		// git.
		{"git push --force", "git force push"},
		{"git push -f origin main", "git force push"},
		{"git push origin main --force", "git force push"},
		{"git push -uf origin main", "git force push"},
		{"git push --force-with-lease", "git force push"},
		{"git push --force-with-lease=main:abc origin main", "git force push"},
		{"git push origin +main", "git force push"},
		{"git -C sub push --force", "git force push"},
		{"git -c push.default=current push -f", "git force push"},
		{"git push --mirror backup", "git push --mirror overwrites the remote"},
		{"git push origin --delete feature", "git push deletes remote branches"},
		{"git push origin :feature", "git push deletes remote branches"},
		{"git reset --hard HEAD~3", "git reset --hard discards uncommitted changes"},
		{"git clean -fdx", "git clean deletes untracked files"},
		{"git clean --force -d", "git clean deletes untracked files"},
		// Disks.
		{"mkfs /dev/sda1", "formats a disk"},
		{"mkfs.ext4 /dev/sdb", "formats a disk"},
		{"sudo mkfs.xfs -f /dev/nvme0n1p2", "formats a disk"},
		{"mkswap /dev/sdb2", "formats a disk"},
		{"wipefs -a /dev/sda", "wipes disk signatures"},
		{"dd if=/dev/zero of=/dev/sda bs=1M", "dd writes to a raw disk device"},
		{"sudo dd if=image.iso of=/dev/disk2", "dd writes to a raw disk device"},
		{"cat image > /dev/sda", "writes to a raw disk device"},
		{"echo x >/dev/nvme0n1", "writes to a raw disk device"},
		{"shred -n 1 /dev/sdb", "shred of a disk device"},
		{"diskutil eraseDisk APFS X disk2", "formats a disk"},
		// Processes and machine.
		{"kill -9 -1", "kills every process"},
		{"kill -KILL -- -1", "kills every process"},
		{"sudo reboot", "shuts down or reboots the machine"},
		{"shutdown -h now", "shuts down or reboots the machine"},
		// Fork bombs.
		{":(){ :|:& };:", "fork bomb"},
		{":() { : | : & } ; :", "fork bomb"},
		{"bomb() { bomb | bomb & }; bomb", "fork bomb"},
		{"function f { f|f & }; f", "fork bomb"},
		// Nesting past the bound.
		{strings.Repeat("$(", 40) + "true" + strings.Repeat(")", 40), "command nested too deeply to check"},
	}
	for _, tc := range tests {
		got, why := Destructive(tc.cmd, testCwd, testHome)
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
		"rm -rf ../other-project",
		"rm -rf /tmp/build-123",
		"rm -rf ~/.cache/go-build",
		"rm -rf $HOME/.cache/pip",
		"rm -rf build/*",
		"rm -rf *.o",
		"rm -rf ./dist/*.js",
		"rm -f *",
		"rm /",
		"rm -f ~/.bashrc.bak",
		`rm -rf '*'`,
		`rm -rf '~'`,
		`rm -rf "$BUILD_DIR"`,
		`rm -rf "${OUT:?}/"`,
		"rm -rf $TMPDIR/foo",
		"cd build && rm -rf *",
		"cd $(mktemp -d) && rm -rf *",
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
		if got, why := Destructive(cmd, testCwd, testHome); got {
			t.Errorf("Destructive(%q) = true, %q; want false", cmd, why)
		}
	}
}

// Without a known cwd or home, ~, $HOME and . still stand for them.
func TestDestructiveUnknownPlaces(t *testing.T) {
	tests := []struct {
		cmd  string
		want bool
	}{
		{"rm -rf ~", true},
		{"rm -rf .", true},
		{"rm -rf *", true},
		{"rm -rf build", false},
		{"rm -rf ~/.cache", false},
		{"rm -rf /", true},
	}
	for _, tc := range tests {
		if got, why := Destructive(tc.cmd, "", ""); got != tc.want {
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
				Destructive(cmd, testCwd, testHome)
			}
		})
	}
}

func FuzzDestructive(f *testing.F) {
	for _, s := range []string{"rm -rf /", "echo $(a `b` \"c\")", "cat <<-X\n\tq\n\tX\n", "${a:?}/*", "$'\\x'", "~+/x", ":(){ :|:& };:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, why := Destructive(s, testCwd, testHome)
		if len(why) > 200 || strings.ContainsRune(why, 0) {
			t.Errorf("reason %q", why)
		}
	})
}
