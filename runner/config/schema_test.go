package config

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	tomlparser "github.com/knadh/koanf/parsers/toml/v2"

	"github.com/magi-code/magi-code/protocol"
)

var updateSchema = flag.Bool("update-schema", false, "rewrite settings.schema.json from SettingsSchema")

// TestSettingsSchemaFile: the checked-in settings.schema.json (for editors
// and `magi-code schema settings`) is exactly what the types give;
// go test ./runner/config -run TestSettingsSchemaFile -update-schema
// rewrites it.
func TestSettingsSchemaFile(t *testing.T) {
	got := SettingsSchema()
	if *updateSchema {
		if err := os.WriteFile("settings.schema.json", got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("settings.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("runner/config/settings.schema.json differs from SettingsSchema(): run go test ./runner/config -run TestSettingsSchemaFile -update-schema")
	}
}

func resolvedSettingsSchema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal(SettingsSchema(), &s); err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// asJSON turns a parsed TOML document into what a JSON Schema validator
// sees (numbers as JSON numbers).
func asJSON(t *testing.T, doc map[string]any) any {
	t.Helper()
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

var tomlBlock = regexp.MustCompile("(?s)```toml\n(.*?)```")

// TestSettingsSchemaAcceptsTheDocs: every TOML block of the README and the
// configuration pages (settings files, whole or in part) is valid against
// the schema, and the schema refuses what Load refuses
// for an unknown key or a wrong type, at any depth.
func TestSettingsSchemaAcceptsTheDocs(t *testing.T) {
	schema := resolvedSettingsSchema(t)
	blocks := 0
	for _, file := range []string{"../../README.md", "../../docs/configuration.md", "KEYS.md"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range tomlBlock.FindAllStringSubmatch(string(data), -1) {
			doc, err := tomlparser.Parser().Unmarshal([]byte(m[1]))
			if err != nil {
				t.Errorf("%s: a toml block does not parse: %v\n%s", file, err, m[1])
				continue
			}
			blocks++
			if err := schema.Validate(asJSON(t, doc)); err != nil {
				t.Errorf("%s: the schema refuses a documented block: %v\n%s", file, err, m[1])
			}
		}
	}
	if blocks < 5 {
		t.Fatalf("only %d toml blocks found in the docs", blocks)
	}
	for _, bad := range []string{
		"colour = \"red\"\n",
		"[tools]\napprovl = \"ask\"\n",
		"[mcp_servers.gh]\ncomand = \"x\"\n",
		"[[hooks]]\nevent = \"stop\"\ncommand = \"x\"\ntimeout = 5\n",
		"[tools.sandbox]\nwritable = []\n",
		"context_window = \"9\"\n",
		"context_window = 1.5\n",
		"[mcp_servers.gh]\nargs = \"x\"\n",
		"[providers.mine]\nkind = \"openai\"\nbase_uri = \"http://x\"\n",
	} {
		doc, err := tomlparser.Parser().Unmarshal([]byte(bad))
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(asJSON(t, doc)); err == nil {
			t.Errorf("the schema accepts %q", bad)
		}
		w := newWorld(t)
		w.write(t, "home/settings.toml", fixtureGlobal+bad, 0o644)
		if _, code := w.load(t); code == "" {
			t.Errorf("Load accepts %q, which the schema refuses: one of the two is wrong", bad)
		}
	}
}

// TestSettingsSchemaCoversLoad: a global file with every key the schema
// names (each with a value of its type, one entry in each open table)
// decodes without error, so the schema names no key, and no type, that
// Load would refuse.
func TestSettingsSchemaCoversLoad(t *testing.T) {
	var root map[string]any
	if err := json.Unmarshal(SettingsSchema(), &root); err != nil {
		t.Fatal(err)
	}
	doc := sample(root).(map[string]any)
	if _, err := merge(doc, nil); err != nil {
		t.Errorf("Load refuses a key of the schema: %v", err)
	}
}

// sample is a value of the schema s: one entry in every open map.
func sample(s any) any {
	m := s.(map[string]any)
	switch m["type"] {
	case "object":
		out := map[string]any{}
		if props, ok := m["properties"].(map[string]any); ok {
			for k, p := range props {
				out[k] = sample(p)
			}
		}
		if rest, ok := m["additionalProperties"].(map[string]any); ok {
			out["x"] = sample(rest)
		}
		return out
	case "array":
		return []any{sample(m["items"])}
	case "string":
		return "s"
	case "boolean":
		return true
	case "integer":
		return int64(1)
	case "number":
		return 1.5
	}
	return nil
}

// TestSettingsSchemaEnums: every value an enum of the schema offers loads
// (no configuration_invalid), one outside it does not, and every enum path
// names a key the schema has.
func TestSettingsSchemaEnums(t *testing.T) {
	// file writes value at path as a settings file.
	file := func(path, value string) string {
		q := strconv.Quote(value)
		if strings.HasPrefix(path, "hooks.") {
			return "[[hooks]]\ncommand = \"true\"\n" + strings.TrimPrefix(path, "hooks.") + " = " + q + "\n"
		}
		path = strings.ReplaceAll(path, "*", "mine")
		i := strings.LastIndex(path, ".")
		if i < 0 {
			return path + " = " + q + "\n"
		}
		extra := ""
		if strings.HasPrefix(path, "providers.mine.") {
			// A table of its own needs an endpoint, a kind, and
			// (for kind anthropic) a key variable.
			extra = "base_url = \"http://127.0.0.1:1/v1\"\napi_key_env = \"MINE_KEY\"\n"
			if !strings.HasSuffix(path, ".kind") {
				extra += "kind = \"openai\"\n"
			}
		}
		return "[" + path[:i] + "]\n" + extra + path[i+1:] + " = " + q + "\n"
	}
	// Each path is a string key of the schema: each enum is in it once.
	if n := strings.Count(string(SettingsSchema()), `"enum":`); n != len(schemaEnums) {
		t.Errorf("the schema has %d enums; schemaEnums %d (a path that names no string key?)", n, len(schemaEnums))
	}
	for path, values := range schemaEnums {
		for _, v := range append(slices.Clone(values), "not-a-value") {
			w := newWorld(t)
			w.write(t, "home/settings.toml", fixtureGlobal+file(path, v), 0o644)
			_, code := w.load(t)
			if bad := code == protocol.CodeConfigurationInvalid; bad != (v == "not-a-value") {
				t.Errorf("%s = %q: Load = %q (logs %q)", path, v, code, w.logs)
			}
		}
	}
}
