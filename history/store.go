package history

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/magi-code/magi-code/protocol"
)

// Errors of appends. They never reach the wire: the caller maps a failed
// required-input append to persistence_failed / not_started and a later one
// to degraded persistence.
var (
	// ErrNotDurable: a record other than required input was appended to a
	// lazy session, which has no file until its first input.
	ErrNotDurable = errors.New("history: session not durable yet")
	// ErrClosed: the attachment was closed or replaced.
	ErrClosed = errors.New("history: attachment closed")
	// ErrPersistence wraps a failed write, fsync or file creation.
	ErrPersistence = errors.New("history: persistence failed")
)

// Selection is the provider/model/thinking selection saved in a header.
type Selection struct {
	Provider string
	Model    string
	Thinking string
}

// OpenInfo is what session.open reports besides the attachment.
type OpenInfo struct {
	// Durable: the session has a file (an empty existing file is durable).
	Durable bool
	// Saved is the session's selection: the last selection record's (a
	// change made after the header was written, SaveSelection), else the
	// header's; HasSaved is false when there is no header yet (empty file,
	// lazy handle). The worker restores it against admitted settings and
	// adds saved_selection_unavailable or saved_selection_notice itself;
	// the store never writes on open. SavedMode is the last selection
	// record's mode ("" when none recorded one).
	Saved     Selection
	HasSaved  bool
	SavedMode string
	// Notices: protocol.NoticeCwdUnverified when no cwd was recorded.
	Notices []string
}

// Store owns the session files under one sessions directory for one child
// cwd. It is safe for concurrent use; each Attachment serializes its own
// operations.
type Store struct {
	dir string
	cwd string // canonical child cwd; "" if it could not be canonicalized
	now func() time.Time
	// gen is the replay generation: every snapshot and every append takes a
	// new value, so a revision is never valid again once replaced. It
	// starts at a random point of [0, 2^62) in every store (one per child),
	// so that revisions and cursors, which carry it, belong to the child
	// that issued them: another child that projects the same bytes issues
	// other ones, and answers stale_revision to these (docs/protocol.md,
	// Frames).
	gen atomic.Uint64
	// detail is what projections show beyond version 1 (SetDetail).
	detail Detail
}

// SetDetail sets what the projections of attachments opened from now on
// show beyond version 1: the optional capabilities the client required
// (Detail). Set it before the first Create or Open.
func (s *Store) SetDetail(d Detail) { s.detail = d }

// newBuilder is a builder of this store's projections, and whether their
// reads may skip the replay-only bodies (tool outputs are kept when shown).
func (s *Store) newBuilder() (*Builder, bool) { return NewBuilder(s.detail), !s.detail.Output }

// NewStore returns a store of sessionsDir (created on first write) for a
// child running in cwd. now stamps created_at in new headers.
func NewStore(sessionsDir, cwd string, now func() time.Time) *Store {
	s := &Store{dir: sessionsDir, now: now}
	s.gen.Store(rand.Uint64N(1 << 62))
	if c, err := filepath.EvalSymlinks(cwd); err == nil && filepath.IsAbs(c) {
		s.cwd = c
	}
	return s
}

func (s *Store) path(id string) string { return filepath.Join(s.dir, id+".jsonl") }

// Attachment is one attached session: its leases, its file (nil while lazy)
// and its current projection. Methods are safe for concurrent use.
type Attachment struct {
	store *Store
	id    string
	path  string

	// mu guards every field below.
	mu        sync.Mutex
	lease     *lease
	file      *os.File
	header    Record // written before the first record when !hasHeader
	hasHeader bool
	size      int64 // end of the last complete line we know of
	// trimmable is how many bytes past size may be cut before an append: a
	// torn last line seen when the file was read, or what a failed write
	// may have left. Anything else past size, or a file shorter than size,
	// was changed behind the lease: appends then fail rather than erase it.
	trimmable int64
	// dirPending: this attachment created the file and the directory entry
	// has not been fsynced yet.
	dirPending bool
	// written is the offset up to which the kernel was asked to start
	// writing the file to disk (startWriteback) or fsynced it.
	written  int64
	prefix   hash.Hash // SHA-256 of the file's first size bytes
	sum      [sha256.Size]byte
	gen      uint64
	revision string
	proj     *Projection
	scopes   []string
	// selection is the last selection record (nil: none; the header's
	// holds); pendingSel is one SaveSelection made before the header was
	// written, appended with it.
	selection, pendingSel *Record
	syncErr               error // sticky: a failed fsync is never retried as success
	closed                bool
	// replay is the provider conversation folded so far (nil: not yet, or
	// the file changed behind the lease); Replay extends it.
	replay *replayLog
	// scratch is the encoding buffer of appends, kept between them while
	// it stays small (a streamed reply appends a chunk every 16 KiB).
	scratch []byte
}

// maxScratch is the largest append buffer an attachment keeps.
const maxScratch = 64 << 10

var emptySum = sha256.Sum256(nil)

// Create allocates a lazy attached session with the given ID (the caller
// draws it, e.g. a UUID): leases are taken now, but no file exists until the
// first required-input append. Codes: invalid_params for an ID outside the
// grammar, session_busy if another holder has the ID's leases,
// session_invalid if anything already exists at its path (never clobbered).
func (s *Store) Create(id string, sel Selection) (*Attachment, protocol.Code) {
	if !ValidSessionID(id) {
		return nil, protocol.CodeInvalidParams
	}
	l, code := acquireLease(s.dir, id)
	if code != "" {
		return nil, code
	}
	path := s.path(id)
	if exists(path) {
		l.release()
		return nil, protocol.CodeSessionInvalid
	}
	a := &Attachment{store: s, id: id, path: path, lease: l}
	a.header = s.newHeader(id, sel)
	a.resetEmptyLocked()
	return a, ""
}

func (s *Store) newHeader(id string, sel Selection) Record {
	return Record{
		Type: TypeHeader, SessionID: id, Version: SchemaVersion, Cwd: s.cwd,
		Provider: sel.Provider, Model: sel.Model, Thinking: sel.Thinking,
		CreatedAt: s.now().UTC().Format(time.RFC3339Nano),
	}
}

func (a *Attachment) resetEmptyLocked() {
	a.prefix = sha256.New()
	a.sum = emptySum
	a.gen = a.store.gen.Add(1)
	a.revision = revisionOf(a.gen, a.sum)
	a.proj = nil
	a.replay = nil
}

// Open attaches an existing session by exact ID. current is the caller's
// present attachment (or nil): when it holds the same ID its leases pass to
// the new attachment on success (same-child reopen, including a lazy handle
// that has no file yet); on failure current stays intact and attached.
// Opening never writes. Codes: invalid_params (ID grammar), session_busy,
// session_missing, session_invalid (unsafe, unreadable or malformed),
// history_limit, cwd_mismatch.
func (s *Store) Open(id string, current *Attachment) (*Attachment, OpenInfo, protocol.Code) {
	if !ValidSessionID(id) {
		return nil, OpenInfo{}, protocol.CodeInvalidParams
	}
	// Reopening the caller's own attachment borrows its leases (and, for a
	// lazy handle, its header); any other ID takes the leases first.
	borrowed := current != nil && current.id == id && current.store == s
	var l *lease
	if borrowed {
		current.mu.Lock()
		defer current.mu.Unlock()
		if current.closed {
			return nil, OpenInfo{}, protocol.CodeSessionMissing
		}
		l = current.lease
	} else {
		// Leases first: a lazy session another holder attached has no file
		// yet and still answers session_busy (the lease is held while
		// attached, idle or not). Opening a missing ID leaves its two empty
		// lock files behind; they are never removed (see lease).
		var code protocol.Code
		if l, code = acquireLease(s.dir, id); code != "" {
			return nil, OpenInfo{}, code
		}
	}
	a := &Attachment{store: s, id: id, path: s.path(id), lease: l}
	f, size, code := openSession(a.path)
	if code == protocol.CodeSessionMissing && borrowed && current.file == nil {
		// docs/protocol.md, session.create: "Same-child session.open may reopen that handle before persistence."
		a.header = current.header
		a.resetEmptyLocked()
		current.retireLocked()
		return a, OpenInfo{}, ""
	}
	var info OpenInfo
	if code == "" {
		info, code = s.load(a, f, size)
	}
	if code != "" {
		if !borrowed {
			l.release()
		}
		return nil, OpenInfo{}, code
	}
	if borrowed {
		current.retireLocked()
	}
	return a, info, ""
}

// load reads the open session file f (size bytes) into a: every record
// checked (recorded cwds, the stored-history bounds), the header and its
// saved selection, the append state and the paged projection. f belongs
// to a on success and is closed on failure.
func (s *Store) load(a *Attachment, f *os.File, size int64) (OpenInfo, protocol.Code) {
	var info OpenInfo
	if size > protocol.StoredHistoryBytes {
		f.Close()
		return info, protocol.CodeHistoryLimit
	}
	b, lean := s.newBuilder()
	sc, code := s.scanRecords(a, f, b, lean)
	if code != "" {
		f.Close()
		return info, code
	}
	info.Durable = true
	if sc.header != nil {
		a.header, a.hasHeader = *sc.header, true
		info.Saved = Selection{Provider: sc.header.Provider, Model: sc.header.Model, Thinking: sc.header.Thinking}
		info.HasSaved = true
		if sel := a.selection; sel != nil {
			info.Saved = Selection{Provider: sel.Provider, Model: sel.Model, Thinking: sel.Thinking}
			info.SavedMode = sel.Mode
		}
	} else {
		a.header = s.newHeader(a.id, Selection{})
	}
	if sc.header == nil || sc.header.Cwd == "" {
		// docs/protocol.md, session.open: "absent older metadata yields cwd_unverified notice, never
		// fabricated verification". An empty file records no cwd either.
		info.Notices = append(info.Notices, protocol.NoticeCwdUnverified)
	}
	a.file, a.size, a.prefix, a.sum = f, sc.valid, sc.prefix, sc.sum
	a.written = sc.valid
	a.trimmable = size - sc.valid
	a.gen = s.gen.Add(1)
	a.revision = revisionOf(a.gen, a.sum)
	p, code := b.Finish(a.id, a.revision, a.gen, sc.torn)
	if code != "" {
		f.Close()
		return OpenInfo{}, code
	}
	a.proj = p
	return info, ""
}

// scanRecords reads every record of f into b and a's task scopes, checking
// each recorded cwd (the header's too) against the child's.
func (s *Store) scanRecords(a *Attachment, f *os.File, b *Builder, lean bool) (scanned, protocol.Code) {
	verified := map[string]bool{}
	sc, code := scan(f, a.id, lean, func(r *Record) protocol.Code {
		if r.Cwd != "" && !s.verifyCwd(r.Cwd, verified) {
			return protocol.CodeCwdMismatch
		}
		switch r.Type {
		case TypeTaskScope:
			// docs/protocol.md, session.open: "Attachment retains stored delegated task-scope ceilings."
			a.scopes = append(a.scopes, r.Ceiling)
		case TypeSelection:
			sel := *r
			a.selection = &sel
		}
		if !b.Add(r) {
			return protocol.CodeHistoryLimit
		}
		return ""
	})
	if code == "" && sc.header != nil && sc.header.Cwd != "" && !s.verifyCwd(sc.header.Cwd, verified) {
		code = protocol.CodeCwdMismatch
	}
	return sc, code
}

// verifyCwd: spec "every nonempty recorded cwd [must] be absolute and
// canonicalize to canonical child cwd; missing recorded path fails".
func (s *Store) verifyCwd(recorded string, verified map[string]bool) bool {
	if ok, seen := verified[recorded]; seen {
		return ok
	}
	ok := false
	if filepath.IsAbs(recorded) && s.cwd != "" {
		c, err := filepath.EvalSymlinks(recorded)
		ok = err == nil && c == s.cwd
	}
	if len(verified) < 64 {
		verified[recorded] = ok
	}
	return ok
}

// retireLocked gives up the attachment after its leases passed to a new one.
func (a *Attachment) retireLocked() {
	a.lease = nil
	a.closeLocked()
}

func (a *Attachment) closeLocked() {
	if a.file != nil {
		a.file.Close()
		a.file = nil
	}
	if a.lease != nil {
		a.lease.release()
		a.lease = nil
	}
	a.proj = nil
	a.replay = nil
	a.closed = true
}

// Close releases the file and both leases. Call it after runtime teardown
// (docs/protocol.md, session.open: leases survive worker/MCP cleanup). Idempotent.
func (a *Attachment) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.closed {
		a.closeLocked()
	}
	return nil
}

// ID returns the session ID.
func (a *Attachment) ID() string { return a.id }

// Durable reports whether the session has a file.
func (a *Attachment) Durable() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.file != nil
}

// Revision returns the current revision: the one the next Snapshot will
// carry. Every append replaces it.
func (a *Attachment) Revision() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.revision
}

// TaskScopes returns the delegated task-scope ceilings stored in the session
// and appended since, in order.
func (a *Attachment) TaskScopes() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.scopes...)
}

// SetSelection sets the selection the header will record, when the header
// has not been written yet (lazy handle or empty file). It reports whether it
// took effect.
func (a *Attachment) SetSelection(sel Selection) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.hasHeader || a.closed {
		return false
	}
	a.header.Provider, a.header.Model, a.header.Thinking = sel.Provider, sel.Model, sel.Thinking
	return true
}

// SaveSelection records the session's selection (and a front door's
// approval mode) as it changes: in the header when the file is not
// written yet (the mode then waits for the first append: it is recorded
// right after the header), else as a selection record, which the next
// Open reports as the saved selection. An unchanged selection records
// nothing.
func (a *Attachment) SaveSelection(sel Selection, mode string) error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return ErrClosed
	}
	rec := Record{Type: TypeSelection, SessionID: a.id, Provider: sel.Provider, Model: sel.Model, Thinking: sel.Thinking, Mode: mode}
	if err := rec.Validate(); err != nil {
		a.mu.Unlock()
		return err
	}
	if !a.hasHeader {
		a.header.Provider, a.header.Model, a.header.Thinking = sel.Provider, sel.Model, sel.Thinking
		a.pendingSel = nil
		if mode != "" {
			a.pendingSel = &rec
		}
		a.mu.Unlock()
		return nil
	}
	last := a.selection
	if last == nil {
		last = &Record{Provider: a.header.Provider, Model: a.header.Model, Thinking: a.header.Thinking}
	}
	same := last.Provider == rec.Provider && last.Model == rec.Model && last.Thinking == rec.Thinking && last.Mode == rec.Mode
	a.mu.Unlock()
	if same {
		return nil
	}
	_, err := a.Append(rec, false)
	return err
}

// AppendInput appends the required user input record and fsyncs it (and the
// directory when this creates the file) before returning the revision that
// input.persisted carries. rec.Type must be TypeInput.
func (a *Attachment) AppendInput(rec Record) (revision string, err error) {
	if rec.Type != TypeInput {
		return "", ErrInvalidRecord
	}
	return a.Append(rec, true)
}

// Append appends one record, stamping the session ID. With sync it fsyncs
// the file before returning (run completion before run.finished claims
// durable). The first record of a lazy session must be input: it creates the
// file, writes header and input, and fsyncs file and directory. A torn last
// line or the rest of an earlier failed write is trimmed first. After a
// failed fsync every later append fails: it is never retried as success.
// Every append, failed or not, makes earlier revisions stale.
func (a *Attachment) Append(rec Record, sync bool) (revision string, err error) {
	rec.SessionID = a.id
	if rec.Type == TypeHeader {
		return "", ErrInvalidRecord
	}
	if err := rec.Validate(); err != nil {
		return "", err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return "", ErrClosed
	}
	if a.syncErr != nil {
		return "", a.syncErr
	}
	buf := a.scratch[:0]
	if !a.hasHeader {
		buf = AppendRecord(buf, &a.header)
	}
	buf = AppendRecord(buf, &rec)
	pendingSel := a.pendingSel
	if a.hasHeader {
		pendingSel = nil
	}
	if pendingSel != nil {
		buf = AppendRecord(buf, pendingSel)
	}
	if cap(buf) <= maxScratch {
		a.scratch = buf
	}
	if a.file == nil {
		if rec.Type != TypeInput {
			return "", ErrNotDurable
		}
		if err := os.MkdirAll(a.store.dir, 0o700); err != nil {
			return "", fmt.Errorf("%w: %w", ErrPersistence, err)
		}
		f, err := createSession(a.path)
		if err != nil {
			return "", fmt.Errorf("%w: %w", ErrPersistence, err)
		}
		a.file, a.dirPending = f, true
	}
	// From here the file may change: the current snapshot is stale for good.
	a.proj = nil
	a.gen = a.store.gen.Add(1)
	a.revision = revisionOf(a.gen, a.sum) // provisional until the write lands
	if err := a.writeLocked(buf); err != nil {
		if !errors.Is(err, errChanged) {
			a.trimmable = int64(len(buf)) // the write may have left part of buf
		}
		return "", fmt.Errorf("%w: %w", ErrPersistence, err)
	}
	a.trimmable = 0
	a.hasHeader = true
	a.size += int64(len(buf))
	a.prefix.Write(buf)
	copy(a.sum[:], a.prefix.Sum(nil))
	a.revision = revisionOf(a.gen, a.sum)
	switch {
	case rec.Type == TypeTaskScope:
		a.scopes = append(a.scopes, rec.Ceiling)
	case rec.Type == TypeSelection:
		a.selection = &rec
	}
	if pendingSel != nil {
		a.selection, a.pendingSel = pendingSel, nil
	}
	if !sync && !a.dirPending && a.size-a.written >= writebackBytes {
		// A long reply streams megabytes into the file: have the kernel
		// write them out as they come, so that the fsync before a
		// durable run.finished has only the tail left to wait for.
		startWriteback(a.file, a.written, a.size-a.written)
		a.written = a.size
	}
	if sync || a.dirPending {
		// docs/protocol.md, Choices: "input.persisted and persistence=durable mean written and
		// fsynced (and the directory fsynced when the file was created)".
		// The directory stays pending until a sync succeeds, even when the
		// write that created the file failed.
		err := a.file.Sync()
		if err == nil && a.dirPending {
			err = syncDir(a.store.dir)
		}
		if err != nil {
			a.syncErr = fmt.Errorf("%w: %w", ErrPersistence, err)
			return "", a.syncErr
		}
		a.dirPending = false
		a.written = a.size
	}
	return a.revision, nil
}

// writebackBytes is how much unsynced text an attachment lets accumulate
// before it asks the kernel to start writing it out.
const writebackBytes = 1 << 20

// errChanged reports a session file changed behind the lease.
var errChanged = errors.New("history: session file changed behind the lease")

// writeLocked trims whatever follows the last complete line (a torn line
// found at open, or the remains of an earlier failed write) and writes buf
// at that offset. A file that shrank, or grew by more than that, was changed
// by someone else: nothing is written (never erase or zero-fill it).
func (a *Attachment) writeLocked(buf []byte) error {
	st, err := a.file.Stat()
	if err != nil {
		return err
	}
	if st.Size() < a.size || st.Size() > a.size+a.trimmable {
		return errChanged
	}
	if st.Size() != a.size {
		// docs/protocol.md, Choices: a torn last line is trimmed "under its lease before the next append".
		if err := a.file.Truncate(a.size); err != nil {
			return err
		}
	}
	_, err = a.file.WriteAt(buf, a.size)
	return err
}

// Snapshot returns the current immutable projection, building it from the
// file when an append made the last one stale. Codes: session_missing after
// Close, session_invalid or history_limit from reading the file.
func (a *Attachment) Snapshot() (*Projection, protocol.Code) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.snapshotLocked()
}

func (a *Attachment) snapshotLocked() (*Projection, protocol.Code) {
	if a.closed {
		return nil, protocol.CodeSessionMissing
	}
	if a.proj != nil {
		return a.proj, ""
	}
	if a.file == nil {
		b, _ := a.store.newBuilder()
		p, code := b.Finish(a.id, a.revision, a.gen, false)
		a.proj = p
		return p, code
	}
	b, lean := a.store.newBuilder()
	sc, code := scan(io.NewSectionReader(a.file, 0, protocol.StoredHistoryBytes+1), a.id, lean, func(r *Record) protocol.Code {
		if !b.Add(r) {
			return protocol.CodeHistoryLimit
		}
		return ""
	})
	if code != "" {
		return nil, code
	}
	if sc.sum != a.sum || sc.valid != a.size {
		// Someone changed the file behind the lease: adopt what is there
		// under a new revision, so pages of the announced one go stale.
		a.size, a.prefix, a.sum = sc.valid, sc.prefix, sc.sum
		a.trimmable = 0
		if st, err := a.file.Stat(); err == nil && st.Size() > a.size {
			a.trimmable = st.Size() - a.size // its torn last line
		}
		a.gen = a.store.gen.Add(1)
		a.revision = revisionOf(a.gen, a.sum)
		a.replay = nil // fold the file as it now is
	}
	p, code := b.Finish(a.id, a.revision, a.gen, sc.torn)
	if code != "" {
		return nil, code
	}
	a.proj = p
	return p, ""
}

// Page answers history.page for this attachment: the serialized result
// object. Codes: session_missing after Close, stale_revision for a revision
// or cursor that is not the current projection's, history_limit or
// session_invalid when the projection cannot be built. The caller checks the
// session ID (stale_session) before calling.
func (a *Attachment) Page(revision string, cursor *string) ([]byte, protocol.Code) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil, protocol.CodeSessionMissing
	}
	if revision != a.revision {
		return nil, protocol.CodeStaleRevision
	}
	p, code := a.snapshotLocked()
	if code != "" {
		return nil, code
	}
	if p.revision != revision {
		return nil, protocol.CodeStaleRevision
	}
	return p.AppendPage(make([]byte, 0, protocol.HistoryPageBytes), cursor)
}

// Walk reads the session's records from its start, in file order, handing
// each to visit: every record after the header, the compacted part
// included (a transcript, where Replay is the provider's conversation).
// The record and its strings are valid during the call only; nothing is
// kept, so memory stays bounded by one line however long the session. A
// code from visit stops the walk and is returned. A lazy session has no
// records.
func (a *Attachment) Walk(visit func(*Record) protocol.Code) protocol.Code {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return protocol.CodeSessionMissing
	}
	if a.file == nil {
		return ""
	}
	_, code := scan(io.NewSectionReader(a.file, 0, a.size), a.id, false, visit)
	return code
}

// Replay returns the records of the provider conversation, starting at the
// last compaction (its summary record first): input, internal_input,
// assistant (one reconciled record per segment, at its first position;
// Partial when it never completed), tool_call, tool_result, compaction and
// run_completed. Presentation-only records (activity, diagnostic, reasoning
// summaries, task scopes) are left out.
func (a *Attachment) Replay() ([]Record, protocol.Code) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil, protocol.CodeSessionMissing
	}
	if a.file == nil {
		return nil, ""
	}
	// The log folds what was appended since the last replay: a turn's
	// replay reads what the previous turn added, not the whole session.
	if a.replay == nil {
		a.replay = newReplayLog(a.id)
	}
	if code := a.replay.catchUp(a.file, a.size); code != "" {
		a.replay = nil
		return nil, code
	}
	return a.replay.records(), ""
}
