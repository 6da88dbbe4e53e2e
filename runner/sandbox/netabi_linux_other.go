//go:build linux && !amd64 && !arm64

package sandbox

// nativeNet is empty: the network filter is written for amd64 and arm64
// only, so here the launcher cannot close the network (NetworkClosable).
var nativeNet netABI
