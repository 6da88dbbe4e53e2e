package config

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	tomlparser "github.com/knadh/koanf/parsers/toml/v2"
	"github.com/pelletier/go-toml/v2"
)

// Source names where a value came from.
const (
	SourceDefault = "default"
	SourceGlobal  = "global"
	SourceProject = "project"
)

// layer is one settings file after parsing, migration and path resolution.
type layer struct {
	source       string
	path         string // canonical path of the file; "" when absent
	present      bool
	raw          map[string]any // without "instructions"
	instructions []string       // absolute, in file order
	original     []byte
	perm         fs.FileMode
	moved        bool           // a version-1 key was migrated
	migrated     map[string]any // the migrated file as written, before path resolution
}

// loadLayer reads one settings file. An absent file is an empty layer.
// Errors name the file and what went wrong (for invalid TOML, where:
// line and column), never the file's text: the person reads them in
// `magi-code config show` and at Mission Control's start.
func loadLayer(source, path, home string, logf func(string, ...any)) (*layer, error) {
	l := &layer{source: source, raw: map[string]any{}}
	data, perm, err := readBounded(path)
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		logf("config: %s settings unreadable: %v", source, err)
		return nil, fmt.Errorf("%s: %s", path, unreadable(err))
	}
	if c, err := canonical(path); err == nil {
		path = c
	}
	l.path, l.present, l.original, l.perm = path, true, data, perm
	raw, err := tomlparser.Parser().Unmarshal(data)
	if err != nil {
		// Log the position only: go-toml's message may quote the document.
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			logf("config: %s settings: invalid TOML at line %d column %d", source, row, col)
			return nil, fmt.Errorf("%s: invalid TOML at line %d, column %d", path, row, col)
		}
		logf("config: %s settings: invalid TOML", source)
		return nil, fmt.Errorf("%s: invalid TOML", path)
	}
	if raw == nil {
		raw = map[string]any{}
	}
	l.raw = raw
	if l.moved, err = migrate(raw); err != nil {
		logf("config: %s settings: migration: %v", source, err)
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if l.moved {
		l.migrated = deepCopy(raw)
		logf("config: %s settings migrated from schema version 1", source)
	}
	if err := l.resolvePaths(filepath.Dir(path), home); err != nil {
		logf("config: %s settings: %v", source, err)
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// unreadable says why a settings file could not be read, in words that
// never quote the system's message (which may hold other paths).
func unreadable(err error) string {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return "unreadable: permission denied"
	case errors.Is(err, errNotRegular):
		return "unreadable: not a regular file"
	case errors.Is(err, errTooLarge):
		return fmt.Sprintf("unreadable: larger than %d bytes", MaxFileBytes)
	}
	return "unreadable: the file could not be read"
}

// resolvePaths makes path-valued keys absolute relative to the defining
// file's directory and moves "instructions" out of the map: instruction
// lists accumulate across files instead of replacing each other.
func (l *layer) resolvePaths(base, home string) error {
	if v, ok := l.raw["instructions"]; ok {
		list, ok := v.([]any)
		if !ok {
			return errors.New("instructions: not an array")
		}
		for _, item := range list {
			s, ok := item.(string)
			if !ok || s == "" {
				return errors.New("instructions: not an array of paths")
			}
			l.instructions = append(l.instructions, resolvePath(s, base, home))
		}
		delete(l.raw, "instructions")
	}
	if p, ok := l.raw["providers"].(map[string]any); ok {
		if f, ok := p["fixture"].(map[string]any); ok {
			if s, ok := f["script"].(string); ok && s != "" {
				f["script"] = resolvePath(s, base, home)
			}
		}
	}
	if tools, ok := l.raw["tools"].(map[string]any); ok {
		sb, _ := tools["sandbox"].(map[string]any)
		for _, v := range []any{tools["read_roots"], sb["writable_roots"]} {
			if list, ok := v.([]any); ok {
				for i, item := range list {
					if s, ok := item.(string); ok && s != "" {
						list[i] = resolvePath(s, base, home)
					}
				}
			}
		}
	}
	if servers, ok := l.raw["mcp_servers"].(map[string]any); ok {
		for _, v := range servers {
			if t, ok := v.(map[string]any); ok {
				if s, ok := t["cwd"].(string); ok && s != "" {
					t["cwd"] = resolvePath(s, base, home)
				}
			}
		}
	}
	return nil
}

// definesServer reports whether this layer has a [mcp_servers.NAME] table.
func (l *layer) definesServer(name string) bool {
	servers, ok := l.raw["mcp_servers"].(map[string]any)
	if !ok {
		return false
	}
	_, ok = servers[name]
	return ok
}

// writeBack persists a migrated global file: the original is kept beside it
// as settings.toml.v1.bak, then the migrated TOML replaces it atomically.
// Comments are not preserved in the rewritten file (the backup has them).
func (l *layer) writeBack() error {
	data, err := tomlparser.Parser().Marshal(l.migrated)
	if err != nil {
		return err
	}
	perm := l.perm
	if perm == 0 {
		perm = 0o600
	}
	if err := WriteAtomic(l.path+".v1.bak", l.original, perm); err != nil {
		return err
	}
	return WriteAtomic(l.path, data, perm)
}
