//go:build unix

package acp

import (
	"encoding/json"
	"fmt"
)

func fmtSscan(s string, v *int) (int, error) { return fmt.Sscan(s, v) }

func jsonInto(raw []byte, v any) bool { return json.Unmarshal(raw, v) == nil }
