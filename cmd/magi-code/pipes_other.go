//go:build !unix

package main

import "errors"

func checkPipe(fd int) error { return errors.New("unsupported platform") }
func isTerminal(fd int) bool { return false }

// serveSupported: Spec: "Windows serve fails explicitly".
const serveSupported = false
