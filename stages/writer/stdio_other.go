//go:build !unix

package writer

import "os"

// TakeStdio fails on systems without Unix pipes. docs/protocol.md, Launch: "Windows serve fails
// explicitly, without changing normal CLI support."
func TakeStdio() (in, out *os.File, err error) { return nil, nil, errUnsupported }
