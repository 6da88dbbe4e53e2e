package transport

import (
	"fmt"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// marker is the text every bad field of TestErrorCodesNoEcho carries. It
// is valid in IDs, method and capability names, so that each frame fails
// only for the reason its case names; no valid ID of these tests contains it.
const marker = "MRKzq7"

// nested returns a params value of depth levels of containers (the params
// object included) with the marker in the innermost array.
func nested(depth int) string {
	return "{" + `"a":` + strings.Repeat("[", depth-1) + clienttest.Quote(marker) + strings.Repeat("]", depth-1) + "}"
}

// errCase is one frame and the error it must get: with id (or id=null when
// id is "") and one of codes.
type errCase struct {
	name  string
	frame string
	id    string
	codes []string
}

func one(code string) []string { return []string{code} }

// TestErrorCodesNoEcho: every non-closing transport error code is
// produced through the process, with the protocol's id rule ("Invalid/
// unrecoverable request identity uses id=null; otherwise id equals request
// ID"), and "Errors do not echo untrusted input": the marker put in each
// bad field never reaches stdout. The connection stays usable throughout
// ("All nonfatal errors leave the connection usable").
func TestErrorCodesNoEcho(t *testing.T) {
	m := marker
	before := []errCase{
		{"empty line", "\n", "", one("invalid_frame")},
		{"whitespace line", " \t\r\n", "", one("invalid_frame")},
		{"depth 33", line(clienttest.Quote("d33"), clienttest.Quote("status"), nested(32)), "", one("invalid_frame")},
		{"not JSON", m + " not json\n", "", one("invalid_request")},
		{"not an object", `["` + m + `"]` + "\n", "", one("invalid_request")},
		{"invalid UTF-8", line(clienttest.Quote("u1"), clienttest.Quote("status"), `{"x":"`+m+"\xff\xfe"+`"}`), "", one("invalid_request")},
		{"lone surrogate in params keeps the id", line(clienttest.Quote("ls1"), clienttest.Quote("status"), `{"x":"\ud800`+m+`"}`), "ls1", one("invalid_request")},
		{"lone surrogate in a params key keeps the id", line(clienttest.Quote("ls2"), clienttest.Quote("status"), `{"\udfff`+m+`":1}`), "ls2", one("invalid_request")},
		{"lone surrogate inside the id", line(`"ls3\ud800"`, clienttest.Quote("status"), `{"x":"`+m+`"}`), "", one("invalid_request")},
		{"trailing bytes", strings.TrimSuffix(reqLine("tb1", "status", "{}"), "\n") + " " + m + "\n", "", one("invalid_request")},
		{"two values", strings.TrimSuffix(reqLine("tv1", "status", "{}"), "\n") + `{"` + m + `":1}` + "\n", "", one("invalid_request")},
		{"unknown field", `{"protocol":"magi-code.local-agent","version":1,"id":"uf1","method":"status","params":{},"` + m + `":1}` + "\n", "uf1", one("invalid_request")},
		{"duplicate field", `{"protocol":"magi-code.local-agent","version":1,"id":"df1","method":"status","method":"` + m + `","params":{}}` + "\n", "df1", one("invalid_request")},
		{"duplicate field via escape", `{"protocol":"magi-code.local-agent","version":1,"id":"de1","method":"status","\u006dethod":"` + m + `","params":{}}` + "\n", "de1", one("invalid_request")},
		{"missing params", `{"protocol":"magi-code.local-agent","version":1,"id":"mp1","method":"` + m + `"}` + "\n", "mp1", one("invalid_request")},
		{"bad id grammar", line(clienttest.Quote(m+"!bad"), clienttest.Quote("status"), "{}"), "", one("invalid_request")},
		{"id with space", line(clienttest.Quote(m+" x"), clienttest.Quote("status"), "{}"), "", one("invalid_request")},
		{"id of 65 bytes", line(clienttest.Quote(m+strings.Repeat("x", 65-len(m))), clienttest.Quote("status"), "{}"), "", one("invalid_request")},
		{"empty id", line(`""`, clienttest.Quote(m), "{}"), "", one("invalid_request")},
		{"id not a string", line(`["`+m+`"]`, clienttest.Quote("status"), "{}"), "", one("invalid_request")},
		{"id number", line(`7`, clienttest.Quote(m), "{}"), "", one("invalid_request")},
		{"bad method grammar", line(clienttest.Quote("bm1"), clienttest.Quote(m+"/x"), "{}"), "bm1", one("invalid_request")},
		{"method not a string", line(clienttest.Quote("bm2"), `{"`+m+`":1}`, "{}"), "bm2", one("invalid_request")},
		{"unsupported method", line(clienttest.Quote("um1"), clienttest.Quote(m), "{}"), "um1", one("unsupported_method")},
		{"unsupported method, case", line(clienttest.Quote("um2"), clienttest.Quote("Status"), `{"`+m+`":1}`), "um2", one("unsupported_method")},
		{"status not initialized", line(clienttest.Quote("ni1"), clienttest.Quote("status"), `{"`+m+`":1}`), "ni1", one("not_initialized")},
		{"session.create not initialized", line(clienttest.Quote("ni2"), clienttest.Quote("session.create"), `{"`+m+`":1}`), "ni2", one("not_initialized")},
		{"turn.start not initialized", line(clienttest.Quote("ni3"), clienttest.Quote("turn.start"), `{"session_id":"`+m+`","prompt":"`+m+`"}`), "ni3", one("not_initialized")},
		{"initialize unknown param", line(clienttest.Quote("ip1"), clienttest.Quote("initialize"), `{"required_capabilities":[],"`+m+`":1}`), "ip1", one("invalid_params")},
		{"initialize duplicate param", line(clienttest.Quote("ip2"), clienttest.Quote("initialize"), `{"required_capabilities":[],"required_capabilities":["`+m+`"]}`), "ip2", one("invalid_params")},
		{"initialize capabilities not a list", line(clienttest.Quote("ip3"), clienttest.Quote("initialize"), `{"required_capabilities":"`+m+`"}`), "ip3", one("invalid_params")},
		{"initialize params not an object", line(clienttest.Quote("ip4"), clienttest.Quote("initialize"), clienttest.Quote(m)), "ip4", one("invalid_params")},
		{"initialize missing capabilities", line(clienttest.Quote("ip5"), clienttest.Quote("initialize"), `{}`), "ip5", one("invalid_params")},
		{"initialize 17 capabilities", line(clienttest.Quote("ip6"), clienttest.Quote("initialize"), `{"required_capabilities":["`+m+`"`+strings.Repeat(`,"status"`, 16)+`]}`), "ip6", []string{"invalid_params"}},
		{"capability grammar", line(clienttest.Quote("ip7"), clienttest.Quote("initialize"), `{"required_capabilities":["`+m+` x"]}`), "ip7", []string{"invalid_params", "unsupported_capability"}},
		{"capability of 65 bytes", line(clienttest.Quote("ip8"), clienttest.Quote("initialize"), `{"required_capabilities":["`+m+strings.Repeat("y", 65-len(m))+`"]}`), "ip8", []string{"invalid_params", "unsupported_capability"}},
		{"unsupported capability", line(clienttest.Quote("uc1"), clienttest.Quote("initialize"), `{"required_capabilities":["status","`+m+`"]}`), "uc1", one("unsupported_capability")},
		{"shutdown bad params", line(clienttest.Quote("sp1"), clienttest.Quote("shutdown"), `{"`+m+`":1}`), "sp1", one("invalid_params")},
		{"shutdown params not an object", line(clienttest.Quote("sp2"), clienttest.Quote("shutdown"), `[`+clienttest.Quote(m)+`]`), "sp2", one("invalid_params")},
		{"duplicate id of an answered request", line(clienttest.Quote("um1"), clienttest.Quote(m), "{}"), "um1", one("duplicate_id")},
		{"duplicate id of a rejected envelope", line(clienttest.Quote("uf1"), clienttest.Quote("status"), `{"`+m+`":1}`), "uf1", one("duplicate_id")},
		{"duplicate id via escape", line(`"u\u006d1"`, clienttest.Quote("status"), "{}"), "um1", one("duplicate_id")},
		{"duplicate id of a lone-surrogate request", reqLine("ls1", "status", "{}"), "ls1", one("duplicate_id")},
		{"the id beside a lone surrogate in the id is unused", reqLine("ls3", m, "{}"), "ls3", one("unsupported_method")},
	}
	after := []errCase{
		{"already initialized", line(clienttest.Quote("ai1"), clienttest.Quote("initialize"), `{"required_capabilities":["`+m+`"]}`), "ai1", one("already_initialized")},
		{"already initialized, valid params", line(clienttest.Quote("ai2"), clienttest.Quote("initialize"), initParams), "ai2", one("already_initialized")},
		{"status bad params", line(clienttest.Quote("sb1"), clienttest.Quote("status"), `{"`+m+`":1}`), "sb1", one("invalid_params")},
		{"status params null", line(clienttest.Quote("sb2"), clienttest.Quote("status"), `null`), "sb2", one("invalid_params")},
		{"session.create bad params", line(clienttest.Quote("sc1"), clienttest.Quote("session.create"), `{"`+m+`":1}`), "sc1", one("invalid_params")},
		{"session.open bad session id", line(clienttest.Quote("so1"), clienttest.Quote("session.open"), `{"session_id":"`+m+`/../x"}`), "so1", one("invalid_params")},
		{"depth 32 is only invalid_params", line(clienttest.Quote("d32"), clienttest.Quote("status"), nested(31)), "d32", one("invalid_params")},
		{"duplicate id of initialize", line(clienttest.Quote("init"), clienttest.Quote("status"), "{}"), "init", one("duplicate_id")},
		{"unsupported method after initialize", line(clienttest.Quote("um3"), clienttest.Quote(m), "{}"), "um3", one("unsupported_method")},
	}

	c, _ := start(t)
	run := func(cases []errCase) {
		for i, ec := range cases {
			if err := c.SendLine([]byte(ec.frame)); err != nil {
				t.Fatalf("%s: %v", ec.name, err)
			}
			r := await(t, c, ec.id)
			if r.Error == nil {
				t.Errorf("%s: answered %s; want error %v", ec.name, r.Raw, ec.codes)
				continue
			}
			ok := false
			for _, code := range ec.codes {
				ok = ok || r.Error.Code == code
			}
			if !ok {
				t.Errorf("%s: code %s; want %v", ec.name, r.Error.Code, ec.codes)
			}
			// Still usable: a fresh status gets an answer.
			sync := fmt.Sprintf("sync%d-%d", len(cases), i)
			if err := c.Send(sync, "status", nil); err != nil {
				t.Fatal(err)
			}
			await(t, c, sync)
		}
	}
	run(before)
	if err := c.Send("init", "initialize", map[string][]string{"required_capabilities": {"status", "shutdown"}}); err != nil {
		t.Fatal(err)
	}
	if r := await(t, c, "init"); r.Error != nil {
		t.Fatalf("initialize answered %s after the error cases", r.Raw)
	}
	run(after)
	shutdown(clienttest.Guard(t), t, c)
	noMarker(t, c, marker)
	if len(c.Frames()) == 0 {
		t.Fatal("no frames recorded")
	}
}

// TestClosingErrors: protocol_mismatch closes the connection: "Mismatch ...
// close as specified", which docs/protocol.md, Choices, defines as EOF: stop admission,
// drain, exit 0. A frame sent behind it in the same write is not answered,
// and the child exits although its stdin stays open. The marker never
// reaches stdout.
func TestClosingErrors(t *testing.T) {
	m := marker
	env := func(protocol, version string) string {
		return `{"protocol":` + protocol + `,"version":` + version + `,"id":"pm1","method":"status","params":{"x":"` + m + `"}}` + "\n"
	}
	cases := []struct {
		name  string
		frame string
		id    string
	}{
		{"protocol name", env(clienttest.Quote(m), "1"), "pm1"},
		{"protocol case", env(`"Magi-code.local-agent"`, "1"), "pm1"},
		{"protocol not a string", env(`["`+m+`"]`, "1"), "pm1"},
		{"version 2", env(`"magi-code.local-agent"`, "2"), "pm1"},
		{"version 1.0", env(`"magi-code.local-agent"`, "1.0"), "pm1"},
		{"version string", env(`"magi-code.local-agent"`, `"1"`), "pm1"},
		{"version 1e0", env(`"magi-code.local-agent"`, "1e0"), "pm1"},
		{"version null", env(`"magi-code.local-agent"`, "null"), "pm1"},
		{"mismatch with bad id", `{"protocol":"` + m + `","version":1,"id":"` + m + `!","method":"status","params":{}}` + "\n", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := start(t)
			if err := c.SendLine([]byte(tc.frame + reqLine("after", "status", "{}") + reqLine("after2", "shutdown", "{}"))); err != nil {
				t.Fatal(err)
			}
			wantCode(t, await(t, c, tc.id), "protocol_mismatch")
			clienttest.WantExit(t, c, 0)
			if n := len(c.Frames()); n != 1 {
				t.Errorf("%d frames; want only protocol_mismatch", n)
			}
			noMarker(t, c, marker)
		})
	}
}
