package approval

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"sync"
	"unicode/utf8"
)

// A session grant is the person's "allow this exact call for the rest of
// this session": a later call of the same tool with the same arguments
// runs without asking. It is exact: the key is the tool's name and its
// arguments as the tool reads them (the command string itself, unredacted,
// byte for byte), so a different spelling of the command, another working
// directory or timeout, or a longer command that begins with the granted
// one is not covered. It is never a prefix rule and never widens.
//
// Grants live in memory, with the session in one process (a child of serve,
// an ACP session); nothing writes them anywhere. A call whose approval a
// protection forced is never granted and never covered: it asks every time.
// Calls made from a Code Mode program ask every time too (their approval
// carries no arguments to key on).

// AllowedForSession is the person's answer "allow, and allow this exact
// call again without asking for the rest of the session". Ask records the
// grant and returns Allowed: no caller of Ask sees it.
const AllowedForSession Decision = Refused + 1

// MaxGrants bounds a session's grants; past it the oldest is forgotten
// (that call asks again).
const MaxGrants = 256

// Grants is one session's set of exact-call grants. The zero value is not
// usable; a nil *Grants grants nothing. Safe for concurrent use.
type Grants struct {
	mu    sync.Mutex
	keys  map[[sha256.Size]byte]struct{}
	order [][sha256.Size]byte // insertion order, for the bound
}

// NewGrants returns an empty set.
func NewGrants() *Grants { return &Grants{keys: make(map[[sha256.Size]byte]struct{})} }

// Key is the identity of a call: the tool's name and its arguments, a JSON
// object, in a canonical form (members sorted, insignificant white space
// dropped, strings and numbers exactly as written). ok is false for
// arguments that are not one valid UTF-8 JSON object: such a call cannot
// be granted. Only the digest is kept, so a grant holds no command text.
func Key(tool string, args json.RawMessage) (key [sha256.Size]byte, ok bool) {
	if !utf8.Valid(args) || !json.Valid(args) {
		return key, false
	}
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	var v map[string]any
	if d.Decode(&v) != nil || v == nil {
		return key, false
	}
	canon, err := json.Marshal(v)
	if err != nil {
		return key, false
	}
	h := sha256.New()
	h.Write([]byte(tool))
	h.Write([]byte{0})
	h.Write(canon)
	copy(key[:], h.Sum(nil))
	return key, true
}

// covers reports whether the exact call was granted.
func (g *Grants) covers(key [sha256.Size]byte) bool {
	if g == nil {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := g.keys[key]
	return ok
}

// add grants the exact call.
func (g *Grants) add(key [sha256.Size]byte) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.keys[key]; ok {
		return
	}
	if len(g.order) >= MaxGrants {
		delete(g.keys, g.order[0])
		g.order = g.order[1:]
	}
	g.keys[key] = struct{}{}
	g.order = append(g.order, key)
}

// Len is the number of grants held.
func (g *Grants) Len() int {
	if g == nil {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.keys)
}

type grantableKey struct{}

type reasonKey struct{}

// Reason is the reason of the protection that forced the approval being
// asked on ctx ("" when the approval mode asked): a front door that shows
// no summary, only the call (ACP's permission request), says it beside.
func Reason(ctx context.Context) string {
	v, _ := ctx.Value(reasonKey{}).(string)
	return v
}

type requestKey struct{}

// WithRequest returns ctx carrying the whole request of the call being
// asked about: the text the approval summary bounds (a shell call's whole
// command), before redaction.
func WithRequest(ctx context.Context, request string) context.Context {
	return context.WithValue(ctx, requestKey{}, request)
}

// Request is the whole request WithRequest put on ctx ("" for none).
func Request(ctx context.Context) string {
	v, _ := ctx.Value(requestKey{}).(string)
	return v
}

// Grantable reports whether the approval being asked on ctx may be
// answered AllowedForSession: an Approver offers that answer (Mission
// Control's key, ACP's allow_always option) only then. An answer
// AllowedForSession where it is not grantable allows the call once.
func Grantable(ctx context.Context) bool {
	v, _ := ctx.Value(grantableKey{}).(bool)
	return v
}

// Ask decides one call's approval: the one place where session grants are
// read and written, for every front door. reason is the protection's when
// one forced the approval ("" when the approval mode asked). A call the
// session granted returns Allowed without asking; otherwise ap is asked
// (nil: Refused, nobody can allow the call), and its AllowedForSession
// records the grant (when the call is grantable) and returns Allowed.
func Ask(ctx context.Context, ap Approver, g *Grants, tool string, args json.RawMessage, summary, reason string) (Decision, error) {
	if ap == nil {
		return Refused, nil
	}
	key, keyed := Key(tool, args)
	grantable := g != nil && keyed && reason == ""
	if grantable && g.covers(key) {
		return Allowed, nil
	}
	ctx = context.WithValue(ctx, reasonKey{}, reason)
	d, err := ap.Approve(context.WithValue(ctx, grantableKey{}, grantable), tool, summary)
	if d == AllowedForSession {
		if grantable && err == nil && ctx.Err() == nil {
			g.add(key)
		}
		d = Allowed
	}
	return d, err
}
