package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
)

// A plant is one small bug in a switch's case clauses: the source with one
// edit, and where and what it is.
type plant struct {
	line int    // the clause's line in the original file
	kind string // drop-label, never, drop-clause, default-body, empty-default, fallthrough
	what string // the label or clause it touches, as written (shortened)
	src  []byte // the whole file with the edit
}

func (p plant) String() string { return fmt.Sprintf("%d %s %s", p.line, p.kind, p.what) }

// plants lists the case-clause plants of one Go file, in source order:
//
//   - drop-label: one label of a clause with several removed (each in turn);
//   - never: the only label of a tagless switch's clause made false
//     (`case false && (COND):`, so what it names stays used);
//   - drop-clause: a tagged or type switch's clause with one label removed
//     whole (the value then goes where no clause matches it);
//   - default-body: a clause's body replaced by what the switch does when no
//     clause matches (the default's body, or nothing);
//   - empty-default: the default's body removed;
//   - fallthrough: `fallthrough` appended to a clause of an expression switch
//     that has a next clause, unless its body already ends in a terminating
//     statement (return, panic, break, continue, goto), where it could not
//     run.
//
// select statements are left alone. A plant may not compile (a variable or
// import left unused); the runner counts those apart.
func plants(filename string, src []byte) ([]plant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filename, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	text := func(a, b token.Pos) string { return string(src[off(a):off(b)]) }
	edit := func(from, to int, with string) []byte {
		out := make([]byte, 0, len(src)+len(with))
		out = append(out, src[:from]...)
		out = append(out, with...)
		return append(out, src[to:]...)
	}
	var out []plant
	add := func(c *ast.CaseClause, kind, what string, s []byte) {
		if bytes.Equal(s, src) {
			return
		}
		out = append(out, plant{line: fset.Position(c.Case).Line, kind: kind, what: short(what), src: s})
	}
	// clauseEnd is where a clause's text ends: the next clause's start, or
	// the switch's closing brace.
	clauseEnd := func(body *ast.BlockStmt, i int) int {
		if i+1 < len(body.List) {
			return off(body.List[i+1].Pos())
		}
		return off(body.Rbrace)
	}
	// bodyText is a clause's statements as written.
	bodyText := func(c *ast.CaseClause) string {
		if len(c.Body) == 0 {
			return ""
		}
		return text(c.Body[0].Pos(), c.Body[len(c.Body)-1].End())
	}
	visit := func(body *ast.BlockStmt, tagless, typeSwitch bool) {
		var def *ast.CaseClause
		for _, s := range body.List {
			if c := s.(*ast.CaseClause); c.List == nil {
				def = c
			}
		}
		for i, s := range body.List {
			c := s.(*ast.CaseClause)
			colon := off(c.Colon)
			bodyFrom, bodyTo := colon+1, clauseEnd(body, i)
			if len(c.Body) > 0 {
				bodyFrom, bodyTo = off(c.Body[0].Pos()), off(c.Body[len(c.Body)-1].End())
			}
			if c.List == nil {
				if len(c.Body) > 0 {
					add(c, "empty-default", "default", edit(bodyFrom, bodyTo, ""))
				}
			} else {
				switch {
				case len(c.List) > 1:
					for k, e := range c.List {
						from, to := off(e.Pos()), off(e.End())
						if k+1 < len(c.List) {
							to = off(c.List[k+1].Pos()) // the comma after it
						} else {
							from = off(c.List[k-1].End()) // the comma before it
						}
						add(c, "drop-label", text(e.Pos(), e.End()), edit(from, to, ""))
					}
				case tagless:
					e := c.List[0]
					add(c, "never", text(e.Pos(), e.End()), edit(off(e.Pos()), off(e.End()), "false && ("+text(e.Pos(), e.End())+")"))
				default:
					add(c, "drop-clause", text(c.List[0].Pos(), c.List[0].End()), edit(off(c.Case), clauseEnd(body, i), ""))
				}
				repl := ""
				if def != nil {
					repl = bodyText(def)
				}
				if repl != bodyText(c) && !typeSwitch {
					add(c, "default-body", text(c.List[0].Pos(), c.List[0].End()), edit(bodyFrom, bodyTo, repl))
				}
			}
			if !typeSwitch && i+1 < len(body.List) && !terminates(c.Body) {
				at := colon + 1
				if len(c.Body) > 0 {
					at = off(c.Body[len(c.Body)-1].End())
				}
				what := "default"
				if c.List != nil {
					what = text(c.List[0].Pos(), c.List[0].End())
				}
				add(c, "fallthrough", what, edit(at, at, "\nfallthrough"))
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.SwitchStmt:
			visit(s.Body, s.Tag == nil, false)
		case *ast.TypeSwitchStmt:
			visit(s.Body, false, true)
		}
		return true
	})
	return out, nil
}

// terminates reports whether a clause's statements end where a fallthrough
// after them could never run (or already fall through).
func terminates(body []ast.Stmt) bool {
	if len(body) == 0 {
		return false
	}
	switch s := body[len(body)-1].(type) {
	case *ast.ReturnStmt, *ast.BranchStmt:
		return true
	case *ast.ExprStmt:
		if call, ok := s.X.(*ast.CallExpr); ok {
			if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "panic" {
				return true
			}
		}
	}
	return false
}

// short keeps a label on one line and under 60 bytes.
func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}
