package config

import (
	"errors"
	"fmt"
)

// migrate brings a parsed settings map to SchemaVersion in place. A missing
// schema_version means version 1. It reports whether a version-1 key was
// actually moved (a file that only lacked the version number has nothing to
// rewrite).
//
// Version 1 -> 2 (the one real migration):
//   - top-level approval_policy = "ask"|"auto"  ->  [tools] approval
//   - top-level api_key_env = "VAR" with provider = "openai"|"anthropic" in
//     the same file  ->  [providers.<provider>] api_key_env
func migrate(m map[string]any) (moved bool, err error) {
	version := int64(1)
	if v, ok := m["schema_version"]; ok {
		n, ok := v.(int64)
		if !ok {
			return false, errors.New("schema_version: not an integer")
		}
		version = n
	}
	switch {
	case version == SchemaVersion:
		return false, nil
	case version > SchemaVersion || version < 1:
		return false, fmt.Errorf("schema_version %d not supported", version)
	}
	// version == 1
	if v, ok := m["approval_policy"]; ok {
		tools, err := table(m, "tools")
		if err != nil {
			return false, err
		}
		if _, set := tools["approval"]; set {
			return false, errors.New("approval_policy and tools.approval both set")
		}
		tools["approval"] = v
		delete(m, "approval_policy")
		moved = true
	}
	if v, ok := m["api_key_env"]; ok {
		provider, _ := m["provider"].(string)
		if provider != "openai" && provider != "anthropic" {
			return false, errors.New("api_key_env (version 1) needs provider openai or anthropic in the same file")
		}
		providers, err := table(m, "providers")
		if err != nil {
			return false, err
		}
		p, err := table(providers, provider)
		if err != nil {
			return false, err
		}
		if _, set := p["api_key_env"]; set {
			return false, errors.New("api_key_env set twice")
		}
		p["api_key_env"] = v
		delete(m, "api_key_env")
		moved = true
	}
	m["schema_version"] = int64(SchemaVersion)
	return moved, nil
}

// table returns m[key] as a table, creating it when absent.
func table(m map[string]any, key string) (map[string]any, error) {
	v, ok := m[key]
	if !ok {
		t := map[string]any{}
		m[key] = t
		return t, nil
	}
	t, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: not a table", key)
	}
	return t, nil
}
