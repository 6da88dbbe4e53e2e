package auth

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"

	"github.com/magi-code/magi-code/runner/config"
)

// authEntry is one provider's record in auth.json (KEYS.md format).
type authEntry struct {
	Type         string `json:"type"`
	Key          string `json:"key,omitempty"`
	AccessToken  string `json:"access_token,omitempty"`
	RefreshToken string `json:"refresh_token,omitempty"`
	ExpiresAt    string `json:"expires_at,omitempty"`
}

// errFormat reports an auth.json that is not a credential store. Its text
// reaches only the injected log.
var errFormat = errors.New("auth.json is not a valid credential store")

// readStore returns auth.json's entries, raw, or an empty map when the file
// does not exist. Like config, it refuses a file readable by others.
func readStore(path string) (map[string]json.RawMessage, error) {
	// Bounded like every file config reads (config.MaxFileBytes), regular,
	// and private to its owner.
	data, err := config.ReadPrivate(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]json.RawMessage{}, nil
	}
	if err != nil {
		return nil, err
	}
	all := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(data)) == 0 {
		return all, nil
	}
	if json.Unmarshal(data, &all) != nil || all == nil {
		return nil, errFormat
	}
	return all, nil
}

// readEntry returns provider's entry; a missing file or entry is the zero
// entry.
func readEntry(path, provider string) (authEntry, error) {
	all, err := readStore(path)
	if err != nil {
		return authEntry{}, err
	}
	raw, ok := all[provider]
	if !ok {
		return authEntry{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var e authEntry
	if dec.Decode(&e) != nil {
		return authEntry{}, errFormat
	}
	return e, nil
}

// writeEntry replaces provider's entry in auth.json, keeping every other
// entry byte for byte. The caller holds the store lock. The new file is a
// 0600 temporary file in the same directory, fsynced, renamed over
// auth.json, then the directory is fsynced: a reader sees the old file or
// the new one, never a partial one.
func writeEntry(path, provider string, e authEntry) error {
	all, err := readStore(path)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(e)
	if err != nil {
		return err
	}
	all[provider] = raw
	data, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	return config.WriteAtomic(path, data, 0o600)
}
