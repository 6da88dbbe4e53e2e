//go:build !unix

package main

import "errors"

func checkPipe(fd int) error { return errors.New("unsupported platform") }

// serveSupported: Spec: "Windows serve fails explicitly".
const serveSupported = false
