//go:build !(linux || darwin || windows)

package history

import (
	"errors"
	"os"

	"github.com/magi-code/magi-code/protocol"
)

// The store runs on Linux, macOS and Windows (fs_unix.go, fs_windows.go).
// Elsewhere it refuses every session so that the rest of the CLI still
// builds.

var errUnsupported = errors.New("history: unsupported platform")

func lockLeaseFile(string) (*os.File, protocol.Code)      { return nil, protocol.CodeSessionInvalid }
func (l *lease) removeFiles(string, string)               {}
func openSession(string) (*os.File, int64, protocol.Code) { return nil, 0, protocol.CodeSessionInvalid }
func createSession(string) (*os.File, error)              { return nil, errUnsupported }
func exists(string) bool                                  { return true }
func syncDir(string) error                                { return errUnsupported }
