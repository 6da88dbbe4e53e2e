package protected

import "testing"

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
