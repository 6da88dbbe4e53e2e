package auth

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"github.com/magi-code/magi-code/runner/config"
)

// ErrNoEntry: Remove found no entry for the provider.
var ErrNoEntry = errors.New("auth: no stored credential for this provider")

// SetKey stores key as provider's API key in $MC_HOME/auth.json
// ({"type":"api_key","key":...}), replacing any entry it had (an OAuth
// entry included) and keeping every other entry as it was. It writes
// under the same lock and in the same atomic way (0600 temporary file,
// fsync, rename, directory fsync) as a turn-time OAuth refresh, creating
// MC_HOME (0700) when missing. The key never appears in an error.
func SetKey(ctx context.Context, home, provider, key string) error {
	if key == "" {
		return errors.New("auth: empty key")
	}
	return update(ctx, home, func(all map[string]json.RawMessage) (bool, error) {
		raw, err := json.Marshal(authEntry{Type: string(APIKey), Key: key})
		if err != nil {
			return false, errors.New("auth: cannot encode the entry")
		}
		all[provider] = raw
		return true, nil
	})
}

// Remove deletes provider's entry from auth.json under the store lock. It
// returns ErrNoEntry when there is none.
func Remove(ctx context.Context, home, provider string) error {
	return update(ctx, home, func(all map[string]json.RawMessage) (bool, error) {
		if _, ok := all[provider]; !ok {
			return false, ErrNoEntry
		}
		delete(all, provider)
		return true, nil
	})
}

// Stored reports which providers have an entry in auth.json, and of which
// type ("api_key", "oauth"), never the secret.
func Stored(home string) (map[string]string, error) {
	all, err := readStore(filepath.Join(home, "auth.json"))
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(all))
	for name, raw := range all {
		var e struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(raw, &e)
		out[name] = e.Type
	}
	return out, nil
}

// update applies change to auth.json's entries under the store lock and
// writes the result atomically when change reports a change.
func update(ctx context.Context, home string, change func(map[string]json.RawMessage) (bool, error)) error {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return errors.New("auth: cannot create MC_HOME")
	}
	path := filepath.Join(home, "auth.json")
	unlock, err := lockFile(ctx, path+".lock")
	if err != nil {
		return errors.New("auth: cannot lock the credential store")
	}
	defer unlock()
	all, err := readStore(path)
	if err != nil {
		return err
	}
	changed, err := change(all)
	if err != nil || !changed {
		return err
	}
	data, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return errors.New("auth: cannot encode the credential store")
	}
	return config.WriteAtomic(path, append(data, '\n'), 0o600)
}
