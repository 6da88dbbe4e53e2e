//go:build !unix

package main

import "errors"

func checkPipe(fd int) error { return errors.New("unsupported platform") }

// serveSupported: docs/protocol.md, Launch: "Windows serve fails explicitly".
const serveSupported = false
