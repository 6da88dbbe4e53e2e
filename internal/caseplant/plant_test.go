package main

import (
	"errors"
	"go/parser"
	"go/token"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const sample = `package p

func f(s string, x any) int {
	switch s {
	case "a", "b", "c":
		return 1
	case "d":
		s += "!"
	default:
		s += "?"
	}
	switch {
	case len(s) > 3:
		s = ""
	case s == "":
		return 2
	}
	switch x.(type) {
	case int:
		return 3
	}
	return len(s)
}
`

// TestPlants: every kind of plant, each the file with exactly that edit.
func TestPlants(t *testing.T) {
	ps, err := plants("p.go", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	edits := map[string]string{}
	for _, p := range ps {
		got = append(got, p.String())
		if _, err := parser.ParseFile(token.NewFileSet(), "p.go", p.src, 0); err != nil {
			t.Errorf("%s: does not parse: %v", p, err)
		}
		edits[p.String()] = diff(sample, string(p.src))
	}
	want := []string{
		`5 drop-label "a"`, `5 drop-label "b"`, `5 drop-label "c"`, `5 default-body "a"`,
		`7 drop-clause "d"`, `7 default-body "d"`, `7 fallthrough "d"`,
		`9 empty-default default`,
		`13 never len(s) > 3`, `13 default-body len(s) > 3`, `13 fallthrough len(s) > 3`,
		`15 never s == ""`, `15 default-body s == ""`,
		`19 drop-clause int`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("plants:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for name, want := range map[string]string{
		`5 drop-label "a"`:           `-a", "+`,
		`5 drop-label "c"`:           `-, "c"+`,
		`5 default-body "a"`:         `-return 1+s += "?"`,
		`7 drop-clause "d"`:          "-case \"d\":\n\t\ts += \"!\"\n\t+",
		`7 fallthrough "d"`:          "-+fallthrough\n",
		`9 empty-default default`:    `-s += "?"+`,
		`13 never len(s) > 3`:        `-len(s) > 3+false && (len(s) > 3)`,
		`13 default-body len(s) > 3`: `-s = ""+`,
	} {
		if edits[name] != want {
			t.Errorf("%s: edit %q, want %q", name, edits[name], want)
		}
	}
}

// diff shows the one edit between a and b as "-removed+inserted", its
// shortest form.
func diff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	j := 0
	for j < len(a)-i && j < len(b)-i && a[len(a)-1-j] == b[len(b)-1-j] {
		j++
	}
	return "-" + a[i:len(a)-j] + "+" + b[i:len(b)-j]
}

// TestTerminates: a fallthrough is not planted after a statement that
// never lets it run.
func TestTerminates(t *testing.T) {
	src := "package p\nfunc f(n int) {\n\tfor {\n\tswitch n {\n\tcase 1:\n\t\treturn\n\tcase 2:\n\t\tpanic(n)\n\tcase 3:\n\t\tcontinue\n\tcase 4:\n\t\tn++\n\tcase 5:\n\t}\n\t}\n}\n"
	ps, err := plants("p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var falls []int
	for _, p := range ps {
		if p.kind == "fallthrough" {
			falls = append(falls, p.line)
		}
	}
	if !slices.Equal(falls, []int{11}) {
		t.Errorf("fallthrough planted on lines %v, want [11]", falls)
	}
}

// TestClassify: what a go test run's output and error say about a plant.
func TestClassify(t *testing.T) {
	exit := &exec.ExitError{}
	for _, tc := range []struct {
		out  string
		err  error
		want string
	}{
		{"ok  \tx\t0.1s\n", nil, "lived"},
		{"--- FAIL: TestA (0.00s)\n    --- FAIL: TestA/b\nFAIL\n", exit, "killed (TestA)"},
		{"# x\n./a.go:3:2: declared and not used: v\nFAIL\tx [build failed]\n", exit, "no-compile"},
		{"panic: test timed out after 5m0s\n", exit, "timed-out"},
		{"panic: boom\nFAIL\tx\t0.1s\n", errors.New("exit status 2"), "killed (no test named: a panic or a failed start)"},
	} {
		if got := classify([]byte(tc.out), tc.err); got != tc.want {
			t.Errorf("classify(%q) = %q, want %q", tc.out, got, tc.want)
		}
	}
}
