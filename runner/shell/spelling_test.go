package shell

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEverySpelling: each rule of the guard rail asks for every spelling
// the command accepts (short and long options, their abbreviations, option
// clusters, find's actions and operator words), for a path that merely
// starts with the workspace's name (~/proj-old from ~/proj), and for
// parameter expansions with operators, whose value is not known; the
// negative rows keep the same spellings where they delete nothing they
// should not.
func TestEverySpelling(t *testing.T) {
	l, at := newLayout(t)
	for _, d := range []string{"proj-old/src", "proj.bak", "proj2"} {
		if err := os.MkdirAll(filepath.Join(l.home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const (
		out  = ReasonDeleteOutside
		ws   = ReasonDeleteWorkspace
		git  = ReasonDeleteGit
		perm = ReasonPermOutside
	)
	for _, tc := range []struct {
		cmd  string
		want Reason // "" when the command must not ask
	}{
		// rm: short, long, abbreviated, clustered, after the operand.
		{"rm -r ~/canary", out}, {"rm -R ~/canary", out}, {"rm -dr ~/canary", out}, {"rm -vR ~/canary", out},
		{"rm -fr ~/canary", out}, {"rm -i -r ~/canary", out}, {"rm ~/canary -r", out},
		{"rm --recursive ~/canary", out}, {"rm --recursiv ~/canary", out}, {"rm --re ~/canary", out},
		{"rm --r ~/canary", out}, {"rm --force --recursive ~/canary", out},
		{"rm --interactive=never -r ~/canary", out},
		{"rm --no-preserve-root ~/canary", out}, {"rm --no-pre ~/canary", out}, {"rm --no ~/canary", out},
		{"rm -f ~/canary", ""}, {"rm --force ~/canary/x", ""}, {"rm -- -r", ""}, {"rm -d ~/canary", ""},
		// find: its actions, each under the operator words around it.
		{"find . -delete", ws}, {"find ~/canary -delete", out}, {"find .git -delete", git},
		{"find . -exec rm {} ;", ws}, {"find . -exec rm {} +", ws}, {"find . -exec rm -rf {} +", ws},
		{"find . -execdir rm {} ;", ws}, {"find . -ok rm {} ;", ws}, {"find . -okdir rm {} ;", ws},
		{"find ~/canary -exec rm {} +", out}, {"find ~/canary -execdir rm {} +", out},
		{"find ~/canary -ok rm {} ;", out}, {"find ~/canary -okdir rm {} ;", out},
		{"find ~/canary -exec /bin/rm -f {} +", out}, {"find ~/canary -exec unlink {} ;", out},
		{"find . -exec sh -c 'rm \"$1\"' _ {} ;", ws}, {"find ~/canary -exec sh -c 'rm \"$1\"' _ {} ;", out},
		{"find . -exec mv {} ~/trash ;", ws},
		{"find . -name x -o -delete", ws}, {"find . -name x -or -delete", ws}, {"find . -name x , -delete", ws},
		{"find . ! -name x -delete", ws}, {"find . -not -name x -delete", ws},
		{"find . \\( -name x -o -name y \\) -delete", ws}, {"find . \\( -name x -o -exec rm {} + \\)", ws},
		{"find . -name x -prune -o -exec rm -rf {} +", ws}, {"find . -name x -a -o -delete", ws},
		// find: a test that matches every name narrows nothing.
		{"find . -name '*' -delete", ws}, {"find . -name '?*' -delete", ws}, {"find . -name '**' -delete", ws}, {"find . -name '[!/]*' -delete", ws},
		{"find . -iname '*' -delete", ws}, {"find . -path '*' -delete", ws}, {"find . -path './*' -delete", ws},
		{"find . -wholename '*' -delete", ws}, {"find . -ipath '*' -delete", ws},
		{"find . -regex '.*' -delete", ws}, {"find . -regex '\\(.*\\)' -delete", ws},
		{"find . -regextype egrep -regex '(.*)' -delete", ws}, {"find . -iregex '.+' -delete", ws},
		{`find . -name "$P" -delete`, ws}, {"find . -user me -delete", ws}, {"find . -type f -delete", ws},
		// find: tests that do narrow, under every action word.
		{"find . -name '*.o' -delete", ""}, {"find . -name x -a -delete", ""}, {"find . -name x -and -delete", ""},
		{"find . \\( -name x \\) -delete", ""}, {"find . -name '*.o' -exec rm {} +", ""},
		{"find . -name '*.o' -execdir rm {} ;", ""}, {"find . -name '*.o' -ok rm {} ;", ""},
		{"find . -name '*.o' -okdir rm {} ;", ""}, {"find . -path './build/*' -delete", ""},
		{"find . -regex '.*\\.\\(c\\|h\\)' -delete", ""}, {"find . -empty -delete", ""},
		{"find . -type f -exec chmod 644 {} +", ""}, {"find . -type f -exec grep -l x {} +", ""},
		{"find build -exec rm -rf {} +", ""}, {"find . -iname '[!A]*' -delete", ""}, {`find . "$A"`, ws},
		{"find . -iwholename '*' -delete", ws}, {"find . -iwholename './build/*' -delete", ""},
		// find: -H and -L follow a starting point that is a link; the last
		// of -H, -L and -P decides.
		{"find -H link -delete", out}, {"find -H link -exec rm {} +", out}, {"find -L link -name '*.o' -delete", out},
		{"find -P -H link -delete", out}, {"find -H -P link -delete", ""}, {"find -L -P . -name '*.o' -delete", ""},
		{"find link -delete", ""}, {"find -P link -exec rm {} +", ""},
		// find: an unknown word may be an operator (-o, !) as well as an
		// action; a test's argument is no expression word, whatever it says.
		{"find . -name '*.o' $A", ws}, {`find . -name '*.o' "$A" -delete`, ws}, {`find . "$A" -name '*.o' -delete`, ws},
		{`find . -name '*.o' -newer "$F" -delete`, ""}, {`find . -maxdepth "$D" -name '*.o' -delete`, ""},
		{"find . -name -delete", ""}, {"find . -type f -name -o -delete", ""}, {"find . -newermt -o -name '*.o' -delete", ""},
		{"find . -printf -delete", ""}, {"find . -fprintf out.txt -delete", ""}, {"find . -fprintf out.txt %p -delete", ws},
		// find: -fprint and its kin write their file, a disk among them;
		// -files0-from reads the starting points from a file.
		{"find . -fprint /dev/sda", ReasonDisk}, {"find . -fprint0 /dev/sdb", ReasonDisk}, {"find . -fls /dev/nvme0n1", ReasonDisk},
		{"find . -fprintf /dev/sda %p", ReasonDisk}, {"find . -fprint list.txt", ""}, {"find . -fprint /dev/null", ""},
		{"find -files0-from list.txt -name '*.o' -delete", out}, {"find -files0-from list.txt -print", ""},
		{"find -files0-from /dev/sdb -print", ""},
		// find -regextype: the extended family is read as Go's syntax, the
		// basic family and unknown types narrow nothing.
		{"find . -regextype posix-basic -regex '.\\+' -delete", ws}, {"find . -regextype sed -regex 'a.*' -delete", ws},
		{`find . -regextype "$T" -regex 'a.*' -delete`, ws}, {"find . -regextype egrep -regex 'a.+' -delete", ""},
		{"find . -regextype posix-extended -regex '(.*)' -delete", ws}, {"find . -regextype awk -regex '.*' -delete", ws},
		{"find . -regextype emacs -regex '\\(.*\\)' -delete", ws}, {"find . -regextype findutils-default -regex '\\(.*\\)' -delete", ws},
		{"find . -regextype emacs -regex '.*\\.o' -delete", ""}, {"find . -regextype findutils-default -regex '.*\\.o' -delete", ""},
		{"find . -regextype posix-extended -regex '.*[.]o' -delete", ""}, {"find . -regextype posix-egrep -regex '.*[.]o' -delete", ""},
		{"find . -regextype awk -regex '.*[.]o' -delete", ""}, {"find . -regextype posix-awk -regex '.*[.]o' -delete", ""},
		{"find . -regextype gnu-awk -regex '.*[.]o' -delete", ""}, {"find . -regextype egrep -regex '.*[.]o' -delete", ""}, {"find . -regex '.*\\\\(*' -delete", ""},
		// find: each deleting program an -exec runs over a whole start.
		{"find ~/canary -exec shred -u {} +", out}, {"find . -exec shred -u {} ;", ws}, {"find ~/canary -exec rimraf {} +", out},
		{"find . -name '*.tmp' -exec shred -u {} +", ""},
		// chmod, chown, chgrp.
		{"chmod -R 777 ~/canary", perm}, {"chmod -vR 777 ~/canary", perm}, {"chmod -Rv 777 ~/canary", perm},
		{"chmod --recursive 777 ~/canary", perm}, {"chmod --recur 777 ~/canary", perm},
		{"chmod --rec 777 ~/canary", perm}, {"chown -hR me ~/canary", perm}, {"chgrp -R me ~/canary", perm},
		{"chmod --reference=x -R ~/canary", perm}, {"chmod -R --ref x ~/canary", perm},
		{"chmod --re 777 ~/canary", ""}, {"chmod 777 ~/canary", ""}, {"chmod -v 777 ~/canary", ""},
		// rsync, mv, tar.
		{"rsync -a --delete src/ ~/canary/", out}, {"rsync -a --del src/ ~/canary/", out},
		{"rsync -a --delete-after src/ ~/canary/", out}, {"rsync -a --delete-excluded src/ ~/canary/", out},
		{"rsync -a --remove-source-files ~/canary/ build/", out}, {"rsync -a --remove-s ~/canary/ build/", out},
		{"rsync -a src/ ~/canary/", ""},
		{"mv -t build ~/canary", out}, {"mv --target-directory=build ~/canary", out}, {"mv --t build ~/canary", out},
		{"mv -ft build ~/canary", out}, {"mv -vt build ~/canary", out}, {"mv -fTt build ~/canary", out}, {"mv -tbuild ~/canary", out},
		{"mv -f a.txt b.txt", ""}, {"mv -T build/a build/b", ""},
		{"tar --remove-files -cf x.tar ~/canary", out}, {"tar --remove-f -cf x.tar ~/canary", out},
		{"tar --rem -cf x.tar ~/canary", out}, {"tar -cf x.tar ~/canary --remov", out},
		{"gtar --remove-files -cf x.tar ~/canary", out}, {"bsdtar --remove-files -cf x.tar ~/canary", out},
		{"TAR_OPTIONS=--remove-files tar -cf x.tar ~/canary", ReasonOpaque},
		{"export TAR_OPTIONS=--rem; tar -cf x.tar ~/canary", ReasonOpaque},
		{"tar -cf x.tar ~/canary", ""}, {"tar --recursion -cf x.tar ~/canary", ""},
		// Globs that match (nearly) every entry of the workspace.
		{"rm -rf ?*", ws}, {"rm -rf .*", ws}, {"rm -rf .[!.]*", ws}, {"rm -rf ./*", ws}, {"rm -rf *.*", ws},
		{"rm -rf ?*.o", ""}, {"rm -rf .cache*", ""},
		// Quoting: a quoted or escaped ~ is a name in the workspace; a
		// quoted option is still one.
		{`rm -rf ~/"canary"`, out}, {`rm -rf ~/can""ary`, out}, {`rm "-rf" ~/canary`, out}, {`rm -r"f" ~/canary`, out},
		{`rm -rf '~/canary'`, ""}, {`rm -rf \~/canary`, ""}, {`rm -rf ~"/canary"`, ""}, {`rm -rf "~"/canary`, ""},
		// A sibling whose name starts with the workspace's.
		{"rm -rf ~/proj-old", out}, {"rm -rf ~/proj-old/", out}, {"rm -rf ~/proj-old/*", out},
		{"rm -rf ~/proj.bak ~/proj2", out}, {"rm -rf ../proj-old", out}, {"rm -rf ./../proj-old/src", out},
		{"rm -rf " + filepath.Join(l.home, "proj-old"), out}, {"rm -rf ~/proj*", out}, {"rm -rf ~/proj?old", out},
		{"cd ../proj-old && rm -rf *", out}, {"cd ~/proj-old; rm -rf .", out},
		{"find ~/proj-old -name '*.o' -delete", out}, {"find ../proj-old -exec rm {} +", out},
		{"chmod -R 000 ~/proj-old", perm}, {"rsync -a --delete src/ ../proj-old/", out},
		{"mv ../proj-old /tmp/x", out}, {"git -C ~/proj-old clean -fdx", out},
		{"git --work-tree=../proj-old clean -f", out},
		{"rm -rf ~/proj/build", ""}, {"rm -rf " + filepath.Join(l.ws, "node_modules"), ""},
		{"rm -rf ~/proj/build/", ""}, {"find ~/proj -name '*.o' -delete", ""},
		// Parameter expansions with operators: the value is computed or
		// unknown, whatever the variable held.
		{"rm -rf ${V%/*}", out}, {`rm -rf "${V#*/}"`, out}, {"rm -rf ${V/x/y}", out}, {"rm -rf ${V//x/y}", out},
		{"rm -rf ${V:-build}", out}, {"rm -rf ${V:=build}", out}, {"rm -rf ${V:+build}", out},
		{"rm -rf ${V:?}", out}, {"rm -rf ${V%%/*}", out}, {"rm -rf ${V##*/}", out}, {"rm -rf ${V:0:1}", out},
		{"rm -rf ${V^^}", out}, {"rm -rf ${!V}", out},
		{"V=build; rm -rf ${V%x}", out}, {"V=build; rm -rf ${V#build}", out},
		{"V=build; rm -rf ./${V/build/..}", out}, {"V=build; rm -rf ${V:-x}", out},
		{`rm -rf "${HOME%/}"`, out}, {"rm -rf ${PWD%/*}", out}, {`rm -rf "${PWD%/*}/proj-old"`, out},
		{"rm -rf build/${V#x}", out}, {"find ${V%/} -delete", out}, {`find "${V%/}" -name '*.o' -delete`, out},
		{`find . "${V#x}" -name '*.o' -delete`, ws}, {"find . -name '*.o' -exec rm -rf ${V:-x} +", out},
		{"chmod -R 777 ${V:-.}", perm}, {"mv ${V#x} /tmp/x", out}, {"rsync -a --delete src/ ${V:-x}/", out},
		{"echo ${V%/*}", ""}, {`rm -f "${V%/*}"`, ""}, {`ls "${V:-.}"`, ""},
		// $PWD after an unknown cd, "$@" and "$*" with parameters, and the
		// empty "$@" of a script given none.
		{`cd "$D"; rm -rf "$PWD"`, out}, {`f() { rm -rf "$@"; }; f ~/canary`, out}, {`f() { rm -rf "$*"; }; f ~/canary`, out},
		{`sh -c 'rm -rf "$@"' sh ~/canary`, out}, {`sh -c 'rm -rf build "$@" "$*"'`, ""}, {`rm -rf build "$@"`, ""},
	} {
		got, why := Destructive(tc.cmd, at)
		if got != (tc.want != "") || why != tc.want {
			t.Errorf("Destructive(%q) = %v, %q; want %q", tc.cmd, got, why, tc.want)
		}
	}
}
