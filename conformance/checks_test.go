package conformance

import (
	"fmt"
	"strings"
	"testing"
)

const (
	inst = `"instance_id":"0b8a4d2e-7f11-4c3a-9d55-1e2f3a4b5c6d"`
	run  = "4f1c2b3a-5d6e-4f70-8192-a3b4c5d6e7f8"
)

func resp(seq int, id, result string) string {
	return fmt.Sprintf(`{"protocol":"magi-code.local-agent","version":1,"type":"response",%s,"seq":%d,"id":"%s","result":%s}`+"\n", inst, seq, id, result)
}

func ev(seq int, name, data string) string {
	return fmt.Sprintf(`{"protocol":"magi-code.local-agent","version":1,"type":"event",%s,"seq":%d,"event":"%s","data":{"session_id":"s1","run_id":"%s",%s}}`+"\n", inst, seq, name, run, data)
}

// TestStreamChecks feeds a well-formed run, then the same run with one
// rule broken, and names the check that must catch it.
func TestStreamChecks(t *testing.T) {
	admit := resp(1, "t1", `{"run_id":"`+run+`","accepted":true}`)
	persisted := func(seq int) string {
		return ev(seq, "input.persisted", `"message_id":"u1","durable":true,"revision":"v2"`)
	}
	delta := func(seq, part int) string {
		return ev(seq, "message.delta", fmt.Sprintf(`"message_id":"m1","part":%d,"text":"x"`, part))
	}
	rec := func(seq, part int, last bool) string {
		return ev(seq, "message.reconcile", fmt.Sprintf(`"message_id":"m1","part":%d,"text":"x","last_part":%v,"partial":false`, part, last))
	}
	finished := func(seq int) string {
		return ev(seq, "run.finished", `"outcome":"completed","persistence":"durable","revision":"v3","error_code":null`)
	}
	notStarted := func(seq int, outcome, code string) string {
		return ev(seq, "run.finished", `"outcome":"`+outcome+`","persistence":"not_started","revision":null,"error_code":`+code)
	}
	cases := []struct {
		name   string
		frames []string
		check  string // "" when every frame passes
		msg    string
	}{
		{"a good run", []string{admit, persisted(2), delta(3, 0), delta(4, 2), rec(5, 0, false), rec(6, 1, true), finished(7)}, "", ""},
		{"seq repeated", []string{admit, persisted(1)}, CheckEnvelope, "seq 1 after seq 1"},
		{"seq from 2", []string{resp(2, "t1", `{"recorded":true}`)}, CheckEnvelope, "first seq is 2"},
		{"another instance", []string{admit, strings.Replace(persisted(2), "0b8a4d2e", "1b8a4d2e", 1)}, CheckEnvelope, "instance_id changed"},
		{"an ID never sent", []string{resp(1, "zz", `{"recorded":true}`)}, CheckEnvelope, "never sent"},
		{"event before admission", []string{persisted(1)}, CheckGrammar, "before any turn.start response"},
		{"input.persisted twice", []string{admit, persisted(2), persisted(3)}, CheckGrammar, "not the run's first event"},
		{"input.persisted late", []string{admit, delta(2, 0), persisted(3)}, CheckGrammar, "first event must be input.persisted"},
		{"never persisted", []string{admit, finished(2)}, CheckGrammar, "first event must be input.persisted"},
		{"not started", []string{admit, notStarted(2, "failed", `"persistence_failed"`)}, "", ""},
		{"not started, cancelled", []string{admit, notStarted(2, "cancelled", `"session_missing"`)}, "", ""},
		{"not started after persisted", []string{admit, persisted(2), notStarted(3, "failed", `"persistence_failed"`)}, CheckGrammar, "not_started after the run's input.persisted"},
		{"not started but completed", []string{admit, notStarted(2, "completed", `"persistence_failed"`)}, CheckGrammar, "not_started with outcome completed"},
		{"not started without a code", []string{admit, notStarted(2, "failed", "null")}, CheckGrammar, "without an error_code"},
		{"delta part repeated", []string{admit, persisted(2), delta(3, 1), delta(4, 1)}, CheckGrammar, "delta part 1 after part 1"},
		{"reconcile gap", []string{admit, persisted(2), rec(3, 0, false), rec(4, 2, true)}, CheckGrammar, "want part 1"},
		{"reconcile after last", []string{admit, persisted(2), rec(3, 0, true), rec(4, 1, true)}, CheckGrammar, "after its last_part"},
		{"finished mid-reconcile", []string{admit, persisted(2), rec(3, 0, false), finished(4)}, CheckGrammar, "reconciled only up to part 0"},
		{"event after finished", []string{admit, persisted(2), finished(3), delta(4, 0)}, CheckGrammar, "after its run.finished"},
		{"finished twice", []string{admit, persisted(2), finished(3), finished(4)}, CheckGrammar, "after its run.finished"},
		{"schema", []string{strings.Replace(admit, `"accepted":true`, `"accepted":"yes"`, 1)}, CheckSchema, "does not match protocol/schema.json"},
		{"error with text", []string{`{"protocol":"magi-code.local-agent","version":1,"type":"response",` + inst + `,"seq":1,"id":null,"error":{"code":"invalid_request","message":"bad <x>"}}` + "\n"}, CheckErrors, "more than its code"},
		{"not JSON", []string{"hello\n"}, CheckFraming, "not one JSON object"},
		{"not UTF-8", []string{"{\"a\":\"\xff\"}\n"}, CheckFraming, "not valid UTF-8"},
		{"too long", []string{`{"a":"` + strings.Repeat("x", 65536) + `"}` + "\n"}, CheckFraming, "65536"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newStream()
			s.request([]byte(`{"protocol":"magi-code.local-agent","version":1,"id":"t1","method":"turn.start","params":{}}`))
			var got *Violation
			for _, f := range c.frames {
				if _, v := s.frame([]byte(f)); v != nil {
					got = v
					break
				}
			}
			switch {
			case c.check == "" && got != nil:
				t.Fatalf("violation %v; want none", got)
			case c.check == "":
			case got == nil:
				t.Fatalf("no violation; want %s", c.check)
			case got.Check != c.check || !strings.Contains(got.Msg, c.msg):
				t.Fatalf("violation %v; want %s containing %q", got, c.check, c.msg)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	cases := []struct {
		want, got string
		diff      string // substring of the difference, "" for a match
	}{
		{`{"a":"$x","b":"$x"}`, `{"a":1,"b":1}`, ""},
		{`{"a":"$x","b":"$x"}`, `{"a":1,"b":2}`, "but $x is 1"},
		{`{"a":"$_"}`, `{"a":{"deep":[1]}}`, ""},
		{`{"a":1}`, `{"a":1,"b":2}`, `unexpected field "b"`},
		{`{"a":1,"b":2}`, `{"a":1}`, `missing field "b"`},
		{`{"a":[1,2]}`, `{"a":[1]}`, "want 2 elements"},
		{`{"a":"s"}`, `{"a":"t"}`, `.a: "t", want "s"`},
		{`{"a":1}`, `{"a":1.0}`, "want 1"},
		{`{"a":"$"}`, `{"a":"$"}`, ""},
	}
	for _, c := range cases {
		w, _ := decode([]byte(c.want))
		g, _ := decode([]byte(c.got))
		d := match(w, g, "", bindings{})
		if (c.diff == "") != (d == "") || !strings.Contains(d, c.diff) {
			t.Errorf("match(%s, %s) = %q; want %q", c.want, c.got, d, c.diff)
		}
	}
	line, err := substitute(`{"a":"$x","b":"$_y","c":"$"}`, bindings{"x": `"v"`, "_y": `2`})
	if err != nil || line != `{"a":"v","b":2,"c":"$"}` {
		t.Errorf("substitute = %s, %v", line, err)
	}
	if _, err := substitute(`{"a":"$unbound"}`, bindings{}); err == nil {
		t.Error("substitute of an unbound name succeeded")
	}
}

func TestParse(t *testing.T) {
	good := "What it shows.\nconformance: any server\n-- settings.toml --\nx\n-- transcript --\n# c\n> {}\n>raw \"a\\n\"\n>fill 3\nunordered\n< {}\n<* {}\nend\nrepeat 2\n> {\"id\":\"n{i}\"}\n< {\"id\":\"n{i}\"}\nend\nclose\nexit 0\n"
	tr, err := Parse("t", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Kit || tr.Doc != "What it shows." || tr.Files["settings.toml"] != "x\n" || len(tr.Steps) != 7 ||
		tr.Steps[1].Text != "a\n" || tr.Steps[2].N != 3 || len(tr.Steps[3].Block) != 2 ||
		tr.Steps[4].Kind != Repeat || tr.Steps[4].N != 2 || len(tr.Steps[4].Block) != 2 || tr.Steps[6].Kind != Exit {
		t.Fatalf("Parse = %+v", tr)
	}
	for _, bad := range []string{
		"-- settings.toml --\n",
		"-- transcript --\n< {\n",
		"-- transcript --\nunordered\n> {}\nend\n",
		"-- transcript --\nrepeat 2\nclose\nend\n",
		"-- transcript --\nrepeat 2\nunordered\nend\n",
		"-- transcript --\nunordered\n< {}\n",
		"-- transcript --\nend\n",
		"-- transcript --\nwait 3\n",
		"-- transcript --\n>raw a\n",
	} {
		if _, err := Parse("t", []byte(bad)); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
}
