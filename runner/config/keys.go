package config

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// keyProblem is what checkKeys found: the dotted key and what is wrong with
// it. It never carries the value.
type keyProblem struct {
	key     string
	unknown bool   // no such setting
	near    string // for an unknown key: a setting of the same table one or two edits away
	want    string // else: the kind of value the setting takes
}

// settingsType is the type every settings file is checked against; keys
// added to Settings are known here without a list to update.
var settingsType = reflect.TypeFor[Settings]()

// checkKeys walks one parsed settings file against the Settings type and
// returns the first key (in sorted order, so the answer is stable) that is
// no setting, or whose value has the wrong kind; nil when every key is
// known and typed as its setting wants.
func checkKeys(raw map[string]any) *keyProblem {
	return checkValue("", raw, settingsType)
}

func checkValue(key string, v any, t reflect.Type) *keyProblem {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	wrong := func(want string) *keyProblem { return &keyProblem{key: key, want: want} }
	switch t.Kind() {
	case reflect.String:
		if _, ok := v.(string); !ok {
			return wrong("a string")
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return wrong("true or false")
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		switch v.(type) {
		case int64, int:
		default:
			return wrong("an integer")
		}
	case reflect.Slice:
		list, ok := v.([]any)
		if !ok {
			return wrong("an array")
		}
		for i, item := range list {
			if p := checkValue(key+"["+strconv.Itoa(i)+"]", item, t.Elem()); p != nil {
				return p
			}
		}
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return wrong("a table")
		}
		for _, k := range sortedKeys(m) {
			if p := checkValue(join(key, k), m[k], t.Elem()); p != nil {
				return p
			}
		}
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return wrong("a table")
		}
		fields := map[string]reflect.Type{}
		var remain reflect.Type // a ",remain" map's element: the type of every other key
		for f := range t.Fields() {
			tag, opt, _ := strings.Cut(f.Tag.Get("koanf"), ",")
			switch {
			case opt == "remain":
				remain = f.Type.Elem()
			case tag != "" && tag != "-":
				fields[tag] = f.Type
			}
		}
		for _, k := range sortedKeys(m) {
			ft, ok := fields[k]
			if !ok && remain != nil {
				ft, ok = remain, true
			}
			if !ok {
				return &keyProblem{key: join(key, k), unknown: true, near: nearest(k, fields)}
			}
			if p := checkValue(join(key, k), m[k], ft); p != nil {
				return p
			}
		}
	}
	return nil
}

// nearest is the field name at most two edits (insertions, deletions,
// substitutions or swaps of neighbours) from key, the closest first, ""
// when none is.
func nearest(key string, fields map[string]reflect.Type) string {
	if len(key) > 64 {
		return ""
	}
	best, bestD := "", 3
	for name := range fields {
		if d := distance(key, name); d < bestD || d == bestD && name < best {
			best, bestD = name, d
		}
	}
	if bestD > 2 {
		return ""
	}
	return best
}

// distance is the optimal string alignment distance of a and b, by bytes.
func distance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// maxKeyRunes bounds a key named in a message.
const maxKeyRunes = 80

// error is the message for a person: the key (control characters made
// visible, bounded) and the file, never the value.
func (p *keyProblem) error(file string) error {
	key := []rune(p.key)
	if len(key) > maxKeyRunes {
		key = append(key[:maxKeyRunes], '…')
	}
	for i, r := range key {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
			key[i] = '?'
		}
	}
	if p.unknown && p.near != "" {
		return fmt.Errorf("unknown setting `%s` in %s; did you mean `%s`?", string(key), file, p.near)
	}
	if p.unknown {
		return fmt.Errorf("unknown setting `%s` in %s", string(key), file)
	}
	return fmt.Errorf("setting `%s` in %s must be %s", string(key), file, p.want)
}

// displayPath is path for a message: under the user's home directory it
// starts with "~/".
func displayPath(path, home string) string {
	if home != "" {
		if rel, err := filepath.Rel(home, path); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			return "~" + string(filepath.Separator) + rel
		}
	}
	return path
}
