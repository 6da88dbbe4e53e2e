package auth

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// maxStoreBytes bounds auth.json, as for every file config reads.
const maxStoreBytes = 1 << 20

// authEntry is one provider's record in auth.json (KEYS.md format).
type authEntry struct {
	Type         string `json:"type"`
	Key          string `json:"key,omitempty"`
	AccessToken  string `json:"access_token,omitempty"`
	RefreshToken string `json:"refresh_token,omitempty"`
	ExpiresAt    string `json:"expires_at,omitempty"`
}

var (
	errInsecure = errors.New("auth.json has group or other permission bits")
	errTooLarge = errors.New("auth.json over 1 MiB")
	errFormat   = errors.New("auth.json is not a valid credential store")
)

// readStore returns auth.json's entries, raw, or an empty map when the file
// does not exist. Like config, it refuses a file readable by others.
func readStore(path string) (map[string]json.RawMessage, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]json.RawMessage{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, errFormat
	}
	if runtime.GOOS != "windows" && st.Mode().Perm()&0o077 != 0 {
		return nil, errInsecure
	}
	data, err := io.ReadAll(io.LimitReader(f, maxStoreBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxStoreBytes {
		return nil, errTooLarge
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
	return writeAtomic(path, data)
}

// writeAtomic replaces path with data, mode 0600.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	// CreateTemp creates the file with mode 0600.
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(name, path); err != nil {
		return err
	}
	ok = true
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
