//go:build !(linux || darwin)

package tools

import "os"

// changeTime is 0 here: the modification time and link count alone tell
// a directory changed.
func changeTime(os.FileInfo) int64 { return 0 }
