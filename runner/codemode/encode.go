package codemode

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dop251/goja"

	"github.com/magi-code/magi-code/internal/jsonenc"
	"github.com/magi-code/magi-code/runner/tools"
)

// encoder writes a JavaScript value as JSON within bounds. It runs on the
// VM goroutine; reading properties may run program code (getters, proxy
// traps), whose exceptions and interrupts propagate as panics through it.
//
// strict (tool arguments): a string over maxStr bytes, an array or object
// with more than maxArr entries, nesting deeper than maxDepth or a total
// over limit sets err and stops. Otherwise (output): writing stops at limit
// and full is set; nothing is refused.
type encoder struct {
	buf    []byte
	limit  int
	strict bool
	maxStr int
	maxArr int
	full   bool
	err    string
}

func (e *encoder) stopped() bool { return e.full || e.err != "" }

func (e *encoder) fail(msg string) {
	if e.err == "" {
		e.err = msg
	}
}

// raw appends s, which is short and already JSON.
func (e *encoder) raw(s string) {
	if len(e.buf)+len(s) > e.limit {
		if e.strict {
			e.fail("arguments too large (limit " + strconv.Itoa(e.limit) + " bytes)")
			return
		}
		e.buf = appendCut(e.buf, s, e.limit-len(e.buf))
		e.full = true
		return
	}
	e.buf = append(e.buf, s...)
}

// str appends a JavaScript string: quoted as JSON, or as it is.
func (e *encoder) str(s goja.String, quoted bool) {
	room := e.limit - len(e.buf)
	if e.strict && s.Length() > e.maxStr {
		e.fail("string too long (limit " + strconv.Itoa(e.maxStr) + " bytes)")
		return
	}
	// Every UTF-16 unit is at least one byte: never convert more units
	// than the room can take. What is left out makes the output full.
	if !e.strict && s.Length() > room {
		s, e.full = s.Substring(0, max(room, 0)), true
	}
	text := s.String()
	if e.strict && len(text) > e.maxStr {
		e.fail("string too long (limit " + strconv.Itoa(e.maxStr) + " bytes)")
		return
	}
	if quoted {
		n := len(e.buf)
		e.buf = jsonenc.AppendString(e.buf, text)
		if len(e.buf) > e.limit {
			e.over(n)
		}
		return
	}
	e.long(text)
}

// long is raw for text that may be long (a top-level string): cut at
// the bound instead of refused.
func (e *encoder) long(s string) {
	if len(e.buf)+len(s) <= e.limit {
		e.buf = append(e.buf, s...)
		return
	}
	e.buf = appendCut(e.buf, s, e.limit-len(e.buf))
	e.full = true
}

// value appends v as JSON at nesting depth. A string at depth 0 in output
// mode is written as it is.
func (e *encoder) value(v goja.Value, depth int) {
	if e.stopped() {
		return
	}
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		e.raw("null")
		return
	}
	if s, ok := v.(goja.String); ok {
		e.str(s, e.strict || depth > 0)
		return
	}
	o, ok := v.(*goja.Object)
	if !ok {
		e.primitive(v)
		return
	}
	if depth >= maxDepth {
		if e.strict {
			e.fail("arguments nested too deeply (limit " + strconv.Itoa(maxDepth) + ")")
			return
		}
		e.raw(`"[too deep]"`)
		return
	}
	switch o.ClassName() {
	case "Function":
		e.raw("null")
		return
	case "Date":
		if t, ok := o.Export().(time.Time); ok {
			e.raw(strconv.Quote(t.UTC().Format("2006-01-02T15:04:05.000Z")))
			return
		}
	case "Error":
		if depth == 0 && !e.strict {
			e.long(o.String())
		} else {
			e.str(o.ToString().(goja.String), true)
		}
		return
	}
	if isArray(o) {
		e.array(o, depth)
		return
	}
	e.object(o, depth)
}

// array appends the array o (at nesting depth) with its elements; a
// function element is null, as in JSON.stringify.
func (e *encoder) array(o *goja.Object, depth int) {
	n := o.Get("length").ToInteger()
	if e.strict && n > int64(e.maxArr) {
		e.fail("array too long (limit " + strconv.Itoa(e.maxArr) + " entries)")
		return
	}
	e.raw("[")
	for i := int64(0); i < n && !e.stopped(); i++ {
		if i > 0 {
			e.raw(",")
		}
		el := o.Get(strconv.FormatInt(i, 10))
		if el != nil {
			if f, ok := el.(*goja.Object); ok && f.ClassName() == "Function" {
				el = nil
			}
		}
		e.value(el, depth+1)
	}
	e.raw("]")
}

// object appends the plain object o (at nesting depth) with its own
// enumerable keys; undefined and function values are left out, as in
// JSON.stringify.
func (e *encoder) object(o *goja.Object, depth int) {
	keys := o.Keys()
	if e.strict && len(keys) > e.maxArr {
		e.fail("object has too many keys (limit " + strconv.Itoa(e.maxArr) + ")")
		return
	}
	e.raw("{")
	first := true
	for _, k := range keys {
		if e.stopped() {
			break
		}
		el := o.Get(k)
		if el == nil || goja.IsUndefined(el) {
			continue // as JSON.stringify
		}
		if f, ok := el.(*goja.Object); ok && f.ClassName() == "Function" {
			continue
		}
		if !first {
			e.raw(",")
		}
		first = false
		if e.strict && len(k) > e.maxStr {
			e.fail("key too long")
			return
		}
		e.key(k)
		e.value(el, depth+1)
	}
	e.raw("}")
}

// primitive appends a number, boolean, BigInt or symbol.
func (e *encoder) primitive(v goja.Value) {
	switch x := v.Export().(type) {
	case bool:
		e.raw(strconv.FormatBool(x))
	case int64:
		e.raw(strconv.FormatInt(x, 10))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			e.raw("null") // as JSON.stringify
			return
		}
		e.raw(v.String())
	case *big.Int:
		e.raw(x.String())
	default:
		e.raw("null")
	}
}

// key appends a quoted object key and the colon.
func (e *encoder) key(k string) {
	n := len(e.buf)
	e.buf = append(jsonenc.AppendString(e.buf, k), ':')
	if len(e.buf) > e.limit {
		e.over(n)
	}
}

// over handles what was appended after e.buf[:n] when it took the buffer
// past the limit: strict encoding fails, the other cuts it back to the
// limit on a UTF-8 boundary and marks the output full.
func (e *encoder) over(n int) {
	if e.strict {
		e.fail("arguments too large (limit " + strconv.Itoa(e.limit) + " bytes)")
		return
	}
	e.buf = cutUTF8(e.buf[:n], e.buf[n:], e.limit-n)
	e.full = true
}

func isArray(o *goja.Object) bool { return o.ClassName() == "Array" }

// appendCut appends as much of s as fits in room bytes, at a UTF-8
// boundary.
func appendCut(dst []byte, s string, room int) []byte {
	if room <= 0 {
		return dst
	}
	if len(s) <= room {
		return append(dst, s...)
	}
	cut := room
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return append(dst, s[:cut]...)
}

// cutUTF8 appends the first room bytes of tail to dst, at a UTF-8 boundary.
func cutUTF8(dst, tail []byte, room int) []byte {
	return appendCut(dst, string(tail), room)
}

// clipString bounds s to limit bytes, ending in tools.TruncatedMarker when
// it was cut, and makes it valid UTF-8.
func clipString(s string, limit int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= limit {
		return s
	}
	cut := max(limit-len(tools.TruncatedMarker), 0)
	return string(appendCut(nil, s, cut)) + tools.TruncatedMarker
}

// output is what comes back to the model: console.log lines, then the
// returned value, at most limit bytes including the truncation marker.
type output struct {
	buf       []byte
	limit     int
	truncated bool
	started   bool // a line was written: the next one starts with LF
}

func (o *output) room() int { return o.limit - len(tools.TruncatedMarker) }

func (o *output) full() bool { return o.truncated }

// newLine starts a line.
func (o *output) newLine() {
	if o.started {
		o.appendRaw("\n")
	}
	o.started = true
}

// line writes s as one line.
func (o *output) line(s string) {
	if o.truncated {
		return
	}
	o.newLine()
	o.appendRaw(s)
}

// appendRaw appends s within the bound.
func (o *output) appendRaw(s string) {
	if o.truncated {
		return
	}
	if len(o.buf)+len(s) > o.room() {
		o.buf = appendCut(o.buf, s, o.room()-len(o.buf))
		o.truncated = true
		return
	}
	o.buf = append(o.buf, s...)
}

// value appends v (a string as it is, anything else as JSON) within the
// bound. It runs on the VM goroutine.
func (o *output) value(v goja.Value) {
	if o.truncated {
		return
	}
	e := encoder{buf: o.buf, limit: o.room()}
	e.value(v, 0)
	o.buf = e.buf
	if e.full {
		o.truncated = true
	}
}

// text is the output with the marker if it was cut.
func (o *output) text() string {
	if o.truncated {
		return string(o.buf) + tools.TruncatedMarker
	}
	return string(o.buf)
}
