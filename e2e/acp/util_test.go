//go:build unix

package acp

import "encoding/json"

func jsonInto(raw []byte, v any) bool { return json.Unmarshal(raw, v) == nil }
