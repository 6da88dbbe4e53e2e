//go:build !unix

package writer

import "errors"

// errUnsupported: the stdio transport is Unix-only. docs/protocol.md, Launch: "Windows serve
// fails explicitly".
var errUnsupported = errors.New("writer: the stdio transport needs a Unix pipe")

func writeFD(uintptr, []byte) (int, error) { return 0, errUnsupported }

func isAgain(error) bool { return false }

func isInterrupted(error) bool { return false }
