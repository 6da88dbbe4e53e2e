package runner

import (
	"reflect"
	"testing"
	"time"

	"github.com/magi-code/magi-code/runner/config"
)

// TestServerDefsCarryEveryField: every field of mcp.ServerDef is filled
// from the settings' server, so a key added to both cannot be dropped on
// the way (enabled_tools, timeouts, headers...).
func TestServerDefsCarryEveryField(t *testing.T) {
	s := config.MCPServer{Name: "n", Command: "c", Args: []string{"a"}, Env: map[string]string{"E": "1"}, URL: "u", Cwd: "/d",
		Headers: map[string]string{"H": "v"}, EnabledTools: []string{"t"}, DisabledTools: []string{"d"},
		StartupTimeout: time.Second, ToolTimeout: time.Minute}
	def := reflect.ValueOf(serverDefs([]config.MCPServer{s})[0])
	for i := range def.NumField() {
		if def.Field(i).IsZero() {
			t.Errorf("serverDefs leaves mcp.ServerDef.%s unset", def.Type().Field(i).Name)
		}
	}
}
