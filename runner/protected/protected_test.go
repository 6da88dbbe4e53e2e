package protected

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestIsVCS: every listed name in any letter case; not look-alikes, nor
// the systems whose metadata holds nothing that runs (.svn, CVS).
func TestIsVCS(t *testing.T) {
	for _, name := range []string{".git", ".hg", ".HG", ".sl", ".jj", ".Jj", ".pijul", "_darcs", ".bzr", ".fslckout", "_FOSSIL_", "_fossil_"} {
		if !IsVCS(name) {
			t.Errorf("IsVCS(%q) = false", name)
		}
	}
	for _, name := range []string{".hgignore", ".hgtags", "hg", ".jjx", "jj", ".gitignore", ".git2", ".svn", "CVS", ".fslckout2", ""} {
		if IsVCS(name) {
			t.Errorf("IsVCS(%q) = true", name)
		}
	}
}

// TestHomeConfig: a home's hidden entries, ~/go and ~/bin are its
// configuration and caches; a kept directory below one (the confined
// commands' own cache, a workspace in a hidden directory) splits it into
// its other entries, recursively; other visible entries are not listed.
func TestHomeConfig(t *testing.T) {
	home := t.TempDir()
	for _, d := range []string{".cache/magi-code/go-build/abc", ".cache/magi-code/go-build/zzz", ".cache/magi-code/npm",
		".cache/pip", ".config/git", ".dotfiles/sub", "go/pkg", "bin", "proj", "Documents"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".bashrc"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	rel := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			r, _ := filepath.Rel(home, p)
			out = append(out, r)
		}
		return out
	}
	for _, tc := range []struct {
		keep []string
		want []string
	}{
		{nil, []string{".bashrc", ".cache", ".config", ".dotfiles", "bin", "go"}},
		{[]string{filepath.Join(home, ".cache/magi-code/go-build/abc")},
			[]string{".bashrc", ".cache/magi-code/go-build/zzz", ".cache/magi-code/npm", ".cache/pip", ".config", ".dotfiles", "bin", "go"}},
		{[]string{filepath.Join(home, ".dotfiles")}, []string{".bashrc", ".cache", ".config", "bin", "go"}},
		{[]string{filepath.Join(home, ".dotfiles/sub/")}, []string{".bashrc", ".cache", ".config", "bin", "go"}},
		{[]string{home}, []string{".bashrc", ".cache", ".config", ".dotfiles", "bin", "go"}},
	} {
		if got := rel(HomeConfig(home, tc.keep)); !slices.Equal(got, tc.want) {
			t.Errorf("HomeConfig(home, %q) = %q; want %q", tc.keep, got, tc.want)
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if r, err := filepath.Rel(wd, home); err == nil {
		if got := HomeConfig(r, nil); got != nil {
			t.Errorf("HomeConfig(%q), a relative path, = %q; want none", r, got)
		}
	}
}

// TestHomeConfigName: hidden entries and ~/go, ~/bin in any letter case
// (which a case-insensitive file system finds by the lower-case name) are
// a home's configuration; other visible entries are not.
func TestHomeConfigName(t *testing.T) {
	for _, name := range []string{".bashrc", ".config", ".X", "go", "Go", "GO", "bin", "Bin", "BIN"} {
		if !HomeConfigName(name) {
			t.Errorf("HomeConfigName(%q) = false", name)
		}
	}
	for _, name := range []string{"proj", "Documents", "gopher", "bins", "g", "x.go", ""} {
		if HomeConfigName(name) {
			t.Errorf("HomeConfigName(%q) = true", name)
		}
	}
}
