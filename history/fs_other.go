//go:build !(linux || darwin)

package history

import (
	"errors"
	"os"

	"github.com/magi-code/magi-code/protocol"
)

// The stdio serve mode, and with it this store, runs on Linux and macOS only
// (docs/protocol.md, Launch: "Windows serve fails explicitly"). Elsewhere the store refuses every
// session so that the rest of the CLI still builds.

var errUnsupported = errors.New("history: unsupported platform")

type lease struct{}

func acquireLease(string, string) (*lease, protocol.Code) { return nil, protocol.CodeSessionInvalid }
func (l *lease) release()                                 {}
func (l *lease) removeFiles(string, string)               {}
func openSession(string) (*os.File, int64, protocol.Code) { return nil, 0, protocol.CodeSessionInvalid }
func createSession(string) (*os.File, error)              { return nil, errUnsupported }
func exists(string) bool                                  { return true }
func syncDir(string) error                                { return errUnsupported }
