// Package redact turns text into safe text: API keys, bearer tokens, private
// keys and credential paths are replaced by a fixed marker before any text
// reaches a frame or a history page. It is a leaf package: pure functions.
//
// String redacts a complete text. Stream redacts a sequence of deltas: a
// secret split across two deltas is still caught, because Stream holds back
// a bounded tail of each delta until the next delta or Flush.
package redact
