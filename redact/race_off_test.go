//go:build !race

package redact

// splitStride is the step between the offsets the split-everywhere tests
// cut at (see race_on_test.go).
const splitStride = 1
