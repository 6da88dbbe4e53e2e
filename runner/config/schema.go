package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// SettingsSchema returns the JSON Schema (draft 2020-12) of settings.toml
// as this build reads it (schema_version 2), derived from the Settings
// types and their koanf tags, so that it cannot drift from them: every
// table is closed (an unknown key is an error, as Load says), each key has
// its TOML type. Values the types cannot express (enums, ranges, which keys
// only the global file may set) are Load's to check; the schema is for
// editors (taplo, Even Better TOML) to complete and check the file. The
// output is deterministic: indented JSON, keys sorted.
func SettingsSchema() []byte {
	root := typeSchema(reflect.TypeFor[Settings](), "")
	root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	root["$id"] = "https://github.com/magi-code/magi-code/runner/config/settings.schema.json"
	root["title"] = "magi-code settings.toml"
	root["description"] = fmt.Sprintf("Settings of magi-code (schema_version %d): $MC_HOME/settings.toml and <cwd>/.magi-code/settings.toml. Keys and their rules: runner/config/KEYS.md.", SchemaVersion)
	// encoding/json sorts map keys: the bytes are the same on every run.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(root); err != nil {
		panic(err) // maps of strings, bools and maps: cannot fail
	}
	return b.Bytes()
}

// schemaEnums are the values of the string keys that take one of a few,
// by their path in the schema ("*" for any table name, nothing for an
// array's element). TestSettingsSchemaEnums loads each value and one
// outside the list, so that a value Load refuses cannot stay here.
var schemaEnums = map[string][]string{
	"thinking":                  {"", "off", "minimal", "low", "medium", "high"},
	"log_level":                 {"", "debug", "info", "warn", "error"},
	"tools.approval":            {"ask", "auto"},
	"tools.code_mode.approval":  {"ask", "auto"},
	"tools.sandbox.mode":        {"workspace-write", "off"},
	"hooks.event":               {"pre_tool_use", "post_tool_use", "stop"},
	"providers.*.kind":          {KindOpenAI, KindAnthropic},
	"providers.openai.wire_api": {WireChat, WireResponses},
	"providers.*.wire_api":      {WireChat, WireResponses},
}

// typeSchema is the schema of a settings value of type t at path.
func typeSchema(t reflect.Type, path string) map[string]any {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch t.Kind() {
	case reflect.Pointer:
		return typeSchema(t.Elem(), path)
	case reflect.String:
		if values, ok := schemaEnums[path]; ok {
			return map[string]any{"type": "string", "enum": values}
		}
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int64, reflect.Int32:
		return map[string]any{"type": "integer"}
	case reflect.Float64, reflect.Float32:
		return map[string]any{"type": "number"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": typeSchema(t.Elem(), path)}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": typeSchema(t.Elem(), join("*"))}
	case reflect.Struct:
		props := map[string]any{}
		var rest any = false // closed: an unknown key is configuration_invalid
		for i := range t.NumField() {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("koanf"), ",")
			switch {
			case opts == "remain":
				// Every other key of the table, each a value of the
				// map's element type ([providers.NAME]).
				rest = typeSchema(f.Type.Elem(), join("*"))
			case name != "":
				props[name] = typeSchema(f.Type, join(name))
			}
		}
		return map[string]any{"type": "object", "properties": props, "additionalProperties": rest}
	}
	panic("config: settings field of a kind the schema does not know: " + t.String())
}
