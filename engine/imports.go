package engine

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	"hearth/engine/search"
	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Imports (EXTENSIONS.md 9): `hearth import` reads another service's export and hands it to the
// running server over the admin socket, as people, channels, files, emoji and batches of
// messages. The operator is the caller (whoever can open the socket can read and change the
// whole community), so these calls take no Caller.
//
// Every thing of the export has a source key ("discord/message/1234"); what it became is
// recorded under the key in the same change that makes it (store.PutImported), so an import
// run again, after a crash too, finds what is there and adds only what is missing.
//
// A channel's history goes in oldest first. While an import of a channel is under way the
// channel takes no other message (ChannelRecord.importing): along its log created_at_ms only
// grows, which the retention purge and its readers rely on (engine/store's doc), and a message
// older than the newest the channel holds is left out. Imported messages take seqs without
// events of their own: each batch sends one channel_updated, which tells the followers of the
// log how many seqs before it the batch took (LoggedEvent.imported_seqs), and open clients
// reload the channel's messages. Imported messages never count as unread
// (ChannelRecord.imported_through_seq).

// Import limits: what one call of the admin socket may carry.
const (
	// ImportBatchMax bounds the messages of one ImportMessages call (one writer change).
	ImportBatchMax = 1000
	// ImportPeopleMax bounds the people of one ImportPeople call.
	ImportPeopleMax = 1000
	// importKeyMax bounds a source key.
	importKeyMax = 512
)

// ImportPerson is someone of an export: an author, a reactor, someone mentioned or a member of a
// private conversation. They become a placeholder member.
type ImportPerson struct {
	Key         string `json:"key"`
	Username    string `json:"username"`
	DisplayName string `json:"display_name"`
}

// ImportChannel is a channel of an export.
type ImportChannel struct {
	Key      string            `json:"key"`
	Kind     svcv1.ChannelKind `json:"kind"`
	Name     string            `json:"name"`
	Topic    string            `json:"topic"`
	Category string            `json:"category"`
	// MemberIDs are the members of a PRIVATE channel or a DM (2 to 9 for a DM).
	MemberIDs []string `json:"member_ids"`
}

// ImportedChannel is what ImportChannel made or found.
type ImportedChannel struct {
	ID      string `json:"id"`
	Created bool   `json:"created"`
}

// ImportMessage is a message of an export, its people already resolved to member ids.
type ImportMessage struct {
	Key         string `json:"key"`
	AuthorID    string `json:"author_id"`
	Text        string `json:"text"`
	CreatedAtMs int64  `json:"created_at_ms"`
	EditedAtMs  int64  `json:"edited_at_ms,omitempty"`
	// ThreadRootKey is the source key of the thread's root, for a thread reply.
	ThreadRootKey string `json:"thread_root_key,omitempty"`
	// ReplyToKey is the source key of the message this one answers.
	ReplyToKey string `json:"reply_to_key,omitempty"`
	// PinnedAtMs is when the source pinned it (0: not pinned), by PinnedByID.
	PinnedAtMs int64  `json:"pinned_at_ms,omitempty"`
	PinnedByID string `json:"pinned_by_id,omitempty"`
	// Deleted keeps the place of a deleted message (a thread root whose replies remain).
	Deleted   bool              `json:"deleted,omitempty"`
	Reactions []*svcv1.Reaction `json:"reactions,omitempty"`
	// AttachmentIDs are uploads ImportFile stored for it.
	AttachmentIDs []string `json:"attachment_ids,omitempty"`
}

// ImportBatchResult says what became of a batch of messages.
type ImportBatchResult struct {
	// Added messages are new; Present ones were imported before.
	Added   int `json:"added"`
	Present int `json:"present"`
	// PastRetention are older than the retention keeps; OutOfOrder older than the newest
	// message the channel already held (a channel's history is kept in time order).
	PastRetention int `json:"past_retention"`
	OutOfOrder    int `json:"out_of_order"`
	// Future ones are dated after now: live messages would come before them.
	Future int `json:"future"`
	// Rootless replies answered a thread root that is not here; they became top-level.
	Rootless int `json:"rootless"`
}

// checkImportKey checks a source key: 1 to 512 bytes of UTF-8 without a NUL.
func checkImportKey(field, k string) error {
	if k == "" {
		return invalid("%s is required", field)
	}
	if err := checkBytes(field, k, importKeyMax); err != nil {
		return err
	}
	if strings.IndexByte(k, 0) >= 0 {
		return invalid("%s must not contain a NUL byte", field)
	}
	return nil
}

// cleanText makes text from an export fit for a field that is shown: refused characters
// dropped, cut to max characters.
func cleanText(s string, max int) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.Map(func(r rune) rune {
		if r != '\n' && refusedInName(r) != "" {
			return -1
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max])
	}
	return strings.TrimSpace(s)
}

// ImportPeople makes a placeholder member for each person not imported before and returns the
// member id of every key: the placeholder, or the member who claimed it since.
func (e *Engine) ImportPeople(ctx context.Context, people []ImportPerson) (map[string]string, error) {
	if n := len(people); n > ImportPeopleMax {
		return nil, invalid("people has %d entries; the limit is %d", n, ImportPeopleMax)
	}
	for i, p := range people {
		if err := checkImportKey("people["+itoa(i)+"].key", p.Key); err != nil {
			return nil, err
		}
	}
	return submit(e, func(tx *Tx) (map[string]string, error) {
		out := make(map[string]string, len(people))
		for _, p := range people {
			if _, ok := out[p.Key]; ok {
				continue
			}
			rec, err := tx.read().Imported(p.Key)
			if err == nil && tx.Snap().Member(rec.GetId()) != nil {
				out[p.Key] = rec.GetId()
				continue
			}
			if err != nil && !isNotFound(err) {
				return nil, err
			}
			m, err := e.addPlaceholder(tx, p)
			if err != nil {
				return nil, err
			}
			out[p.Key] = m.GetId()
		}
		return out, nil
	})
}

// addPlaceholder writes a placeholder member for a person of an export: no login, never online.
func (e *Engine) addPlaceholder(tx *Tx, p ImportPerson) (*svcv1.Member, error) {
	d := tx.Snap()
	display := shownName(p.DisplayName, displayNameMax)
	base := normalizeUsername(firstNonEmpty(p.Username, display))
	m := &svcv1.Member{
		Id:         uuid.Must(uuid.NewV7()).String(),
		Kind:       svcv1.MemberKind_MEMBER_KIND_HUMAN,
		Role:       svcv1.MemberRole_MEMBER_ROLE_MEMBER,
		Username:   uniqueUsername(base, func(u string) bool { return d.usernameTaken(u, "") }),
		JoinedAtMs: tx.NowMs(),
		Imported:   true,
	}
	m.DisplayName = firstNonEmpty(display, m.Username)
	rec := &storepb.MemberRecord{Member: m, State: storepb.MemberState_MEMBER_STATE_ACTIVE, ImportSource: p.Key}
	if err := e.welcome(tx, rec); err != nil {
		return nil, err
	}
	return m, tx.mutate().PutImported(p.Key, &storepb.ImportedRecord{Id: m.GetId()})
}

// ImportChannel makes the channel of an export, or finds the one an earlier run made, and
// closes it to new messages until FinishImport.
func (e *Engine) ImportChannel(ctx context.Context, in ImportChannel) (ImportedChannel, error) {
	if err := checkImportKey("key", in.Key); err != nil {
		return ImportedChannel{}, err
	}
	switch in.Kind {
	case svcv1.ChannelKind_CHANNEL_KIND_TEXT, svcv1.ChannelKind_CHANNEL_KIND_PRIVATE:
	case svcv1.ChannelKind_CHANNEL_KIND_DM:
		if n := len(in.MemberIDs); n < 2 || n > dmOthersMax+1 {
			return ImportedChannel{}, invalid("member_ids of a DM must name 2 to %d members; got %d", dmOthersMax+1, n)
		}
	default:
		return ImportedChannel{}, invalid("kind must be CHANNEL_KIND_TEXT, CHANNEL_KIND_PRIVATE or CHANNEL_KIND_DM")
	}
	name := normalizeChannelName(cleanText(in.Name, channelNameTypedMax))
	if utf8.RuneCountInString(name) > channelNameMax {
		name = strings.Trim(string([]rune(name)[:channelNameMax]), "-")
	}
	if name == "" && in.Kind != svcv1.ChannelKind_CHANNEL_KIND_DM {
		name = "imported"
	}
	topic, category := cleanText(in.Topic, channelTopicMax), shownName(in.Category, channelCategory)
	return submit(e, func(tx *Tx) (ImportedChannel, error) {
		d := tx.Snap()
		rec, err := importedChannel(tx, in.Key)
		if err != nil && !isNotFound(err) {
			return ImportedChannel{}, err
		}
		if rec != nil {
			if !rec.GetImporting() {
				rec = proto.Clone(rec).(*storepb.ChannelRecord)
				rec.Importing = true
				if err := tx.putChannel(rec); err != nil {
					return ImportedChannel{}, err
				}
			}
			return ImportedChannel{ID: rec.GetChannel().GetId()}, nil
		}
		var members []string
		for _, id := range in.MemberIDs {
			if d.Member(id) == nil {
				return ImportedChannel{}, notFound("member_ids: member %s does not exist", id)
			}
			if !slices.Contains(members, id) {
				members = append(members, id)
			}
		}
		if in.Kind == svcv1.ChannelKind_CHANNEL_KIND_DM {
			// The same people always have the same DM: an earlier one takes the history.
			if dm := d.DM(members); dm != nil {
				dm = proto.Clone(dm).(*storepb.ChannelRecord)
				dm.Importing = true
				if err := tx.putChannel(dm); err != nil {
					return ImportedChannel{}, err
				}
				id := dm.GetChannel().GetId()
				return ImportedChannel{ID: id}, tx.mutate().PutImported(in.Key, &storepb.ImportedRecord{Id: id})
			}
			slices.Sort(members)
			name, topic, category = "", "", ""
		}
		ch := &svcv1.Channel{
			Id:          uuid.Must(uuid.NewV7()).String(),
			Kind:        in.Kind,
			Name:        name,
			Topic:       topic,
			Category:    category,
			CreatedAtMs: tx.NowMs(),
		}
		if in.Kind != svcv1.ChannelKind_CHANNEL_KIND_DM {
			ch.Position = nextPosition(d, category)
		}
		if in.Kind != svcv1.ChannelKind_CHANNEL_KIND_TEXT {
			ch.MemberIds = members
		}
		if err := tx.putChannel(&storepb.ChannelRecord{Channel: ch, Importing: true}); err != nil {
			return ImportedChannel{}, err
		}
		if err := tx.mutate().PutImported(in.Key, &storepb.ImportedRecord{Id: ch.Id}); err != nil {
			return ImportedChannel{}, err
		}
		if _, err := tx.emit(toViewers(ch.Id), &svcv1.Event{Kind: &svcv1.Event_ChannelCreated{ChannelCreated: ch}}); err != nil {
			return ImportedChannel{}, err
		}
		return ImportedChannel{ID: ch.Id, Created: true}, nil
	})
}

// importedChannel is the channel an import's source key made; ErrNotFound when none (never
// made, or deleted since).
func importedChannel(tx *Tx, key string) (*storepb.ChannelRecord, error) {
	rec, err := tx.read().Imported(key)
	if err != nil {
		return nil, err
	}
	if ch := tx.Snap().Channel(rec.GetId()); ch != nil {
		return ch, nil
	}
	return nil, store.ErrNotFound
}

// FinishImport opens an imported channel to new messages again, and tells its viewers it
// changed (channel_updated: its last_message_seq).
func (e *Engine) FinishImport(ctx context.Context, channelKey string) error {
	if err := checkImportKey("channel_key", channelKey); err != nil {
		return err
	}
	_, err := submit(e, func(tx *Tx) (struct{}, error) {
		rec, err := importedChannel(tx, channelKey)
		if isNotFound(err) {
			return struct{}{}, notFound("channel_key %q was not imported", channelKey)
		}
		if err != nil || !rec.GetImporting() {
			return struct{}{}, err
		}
		rec = proto.Clone(rec).(*storepb.ChannelRecord)
		rec.Importing = false
		if err := tx.putChannel(rec); err != nil {
			return struct{}{}, err
		}
		_, err = e.channelUpdated(tx, rec, toViewers(rec.GetChannel().GetId()))
		return struct{}{}, err
	})
	return err
}

// importLocked refuses a new message in a channel whose import is under way.
func importLocked(rec *storepb.ChannelRecord) error {
	if rec.GetImporting() {
		return precondition("this channel's history is being imported; it takes new messages once the import finishes")
	}
	return nil
}

// ImportFile stores a file of an export for its owner (a member id) as an unused upload, or
// finds the one an earlier run stored; ImportMessages attaches it. With avatar, an image becomes
// the owner's picture if the owner is a placeholder without one.
func (e *Engine) ImportFile(ctx context.Context, key, ownerID, name string, body io.Reader, avatar bool) (string, error) {
	if e.opts.Bucket == nil || e.opts.Signer == nil || e.opts.Sandbox == nil {
		return "", &Error{Code: CodeUnavailable, Msg: "this server takes no file uploads"}
	}
	if err := checkImportKey("key", key); err != nil {
		return "", err
	}
	if e.snap.Load().Member(ownerID) == nil {
		return "", notFound("owner: member %s does not exist", ownerID)
	}
	if strings.TrimSpace(name) == "" {
		name = "file"
	}
	var existing string
	err := e.db.View(func(r *store.Reader) error {
		rec, err := r.Imported(key)
		if err != nil {
			return err
		}
		if _, err := r.Upload(rec.GetId()); err != nil {
			return err
		}
		existing = rec.GetId()
		return nil
	})
	if err == nil {
		return existing, nil
	}
	if !isNotFound(err) {
		return "", err
	}
	rec, err := e.storeFile(ctx, name, body)
	if err != nil {
		return "", err
	}
	rec.OwnerId = ownerID
	id, err := submit(e, func(tx *Tx) (string, error) {
		if prev, err := tx.read().Imported(key); err == nil {
			if _, err := tx.read().Upload(prev.GetId()); err == nil {
				return prev.GetId(), nil // stored meanwhile by another run
			}
		}
		rec.CreatedAtMs = tx.NowMs()
		if err := tx.mutate().PutUpload(rec); err != nil {
			return "", err
		}
		if err := tx.mutate().PutImported(key, &storepb.ImportedRecord{Id: rec.GetId()}); err != nil {
			return "", err
		}
		if avatar {
			return rec.GetId(), e.importedAvatar(tx, ownerID, rec)
		}
		return rec.GetId(), nil
	})
	if err != nil || id != rec.GetId() {
		if !errors.Is(err, errOutcomeUnknown) {
			e.deleteObjects([]string{rec.GetId()})
		}
	}
	return id, err
}

// importedAvatar makes an image the picture of a placeholder that has none.
func (e *Engine) importedAvatar(tx *Tx, memberID string, img *storepb.UploadRecord) error {
	m := tx.Snap().active(memberID)
	if m == nil || !m.GetMember().GetImported() || m.GetMember().GetAvatarUrl() != "" ||
		!imageTypes[img.GetContentType()] || img.GetSize() > imageBytesMax || img.GetWidth() == 0 ||
		img.GetWidth() > imageSideMax || img.GetHeight() > imageSideMax {
		return nil
	}
	m = proto.Clone(m).(*storepb.MemberRecord)
	if err := tx.useUpload(img, storepb.UploadUse_UPLOAD_USE_AVATAR, memberID); err != nil {
		return err
	}
	m.Member.AvatarUrl = fileRef(img.GetId(), img.GetName())
	if err := tx.putMember(m); err != nil {
		return err
	}
	return e.emitMemberUpdated(tx, m.GetMember())
}

// ImportMessages adds a batch of a channel's messages, oldest first: those not imported before,
// kept by the retention, and not older than what the channel holds. The batch goes in as few
// changes as hold it (importChangeLoad): most often one, more when its messages are long.
func (e *Engine) ImportMessages(ctx context.Context, channelKey string, msgs []ImportMessage) (ImportBatchResult, error) {
	if err := checkImportKey("channel_key", channelKey); err != nil {
		return ImportBatchResult{}, err
	}
	if n := len(msgs); n > ImportBatchMax {
		return ImportBatchResult{}, invalid("messages has %d entries; the limit is %d", n, ImportBatchMax)
	}
	docs := make([]search.Doc, len(msgs))
	for i := range msgs {
		if err := checkImportMessage(i, &msgs[i]); err != nil {
			return ImportBatchResult{}, err
		}
		// Analyzed here, on the caller's goroutine, not in the writer.
		if len(msgs[i].AttachmentIDs) == 0 && !msgs[i].Deleted {
			docs[i] = search.Analyze(msgs[i].Text, nil)
		}
	}
	var total ImportBatchResult
	for from := 0; from < len(msgs); {
		if err := e.awaitIndex(ctx); err != nil {
			return total, err
		}
		step, err := submit(e, func(tx *Tx) (importStep, error) {
			res, took, err := e.importBatch(tx, channelKey, msgs, docs, from)
			return importStep{res, took}, err
		})
		if err != nil {
			return total, err
		}
		total.add(step.res)
		from += step.took
	}
	return total, nil
}

// importChangeLoad is how full a transaction (store.Batch.Load) a change of an import makes
// before it leaves the rest of its batch to the next change: a thousand messages of a few
// hundred characters each are more than one transaction holds. The other half is room for the
// last message it took (whose rows may be many: one for each placeholder it names) and for
// changes committed with it.
const importChangeLoad = 0.5

// importStep is what one change of ImportMessages did: took messages from the front of the
// batch, with res.
type importStep struct {
	res  ImportBatchResult
	took int
}

func (r *ImportBatchResult) add(o ImportBatchResult) {
	r.Added += o.Added
	r.Present += o.Present
	r.PastRetention += o.PastRetention
	r.OutOfOrder += o.OutOfOrder
	r.Future += o.Future
	r.Rootless += o.Rootless
}

// indexBacklogMax bounds the search ops an import lets wait for the index: each waits in
// memory until the index takes it, and an import writes faster than the index folds.
const indexBacklogMax = 20_000

// awaitIndex waits while the message index has more than indexBacklogMax ops to take.
func (e *Engine) awaitIndex(ctx context.Context) error {
	for e.index.Pending() > indexBacklogMax {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-e.closing:
			return ErrClosed
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}

// checkImportMessage checks what ImportMessages can check before the writer.
func checkImportMessage(i int, m *ImportMessage) error {
	field := func(name string) string { return "messages[" + itoa(i) + "]." + name }
	if err := checkImportKey(field("key"), m.Key); err != nil {
		return err
	}
	if m.AuthorID == "" {
		return invalid("%s is required", field("author_id"))
	}
	if err := checkLen(field("text"), m.Text, messageTextMax); err != nil {
		return err
	}
	if m.CreatedAtMs <= 0 {
		return invalid("%s must be a time after 1970", field("created_at_ms"))
	}
	if m.EditedAtMs != 0 && m.EditedAtMs < m.CreatedAtMs {
		m.EditedAtMs = m.CreatedAtMs
	}
	for _, k := range []string{m.ThreadRootKey, m.ReplyToKey} {
		if k != "" {
			if err := checkImportKey(field("thread_root_key or reply_to_key"), k); err != nil {
				return err
			}
		}
	}
	if n := len(m.AttachmentIDs); n > attachmentsMax {
		return invalid("%s has %d ids; the limit is %d", field("attachment_ids"), n, attachmentsMax)
	}
	if err := checkUploadIDs(field("attachment_ids"), m.AttachmentIDs); err != nil {
		return err
	}
	// A reaction this server could not take (an emoji it does not accept, nobody, one past
	// the limit) is left out rather than the whole message.
	m.Reactions = slices.DeleteFunc(m.Reactions, func(r *svcv1.Reaction) bool {
		return r == nil || checkEmoji(r.GetEmoji()) != nil || len(r.GetMemberIds()) == 0
	})
	if len(m.Reactions) > reactionsMax {
		m.Reactions = m.Reactions[:reactionsMax]
	}
	if strings.TrimSpace(m.Text) == "" && len(m.AttachmentIDs) == 0 && !m.Deleted {
		return invalid("%s must not be empty (or the message must have attachments)", field("text"))
	}
	return nil
}

// importBatch is ImportMessages inside the writer: from msgs[from] on, it takes messages until
// the change holds its share of a transaction (importChangeLoad), and says how many it took.
func (e *Engine) importBatch(tx *Tx, channelKey string, msgs []ImportMessage, docs []search.Doc, from int) (res ImportBatchResult, took int, err error) {
	d := tx.Snap()
	rec, err := importedChannel(tx, channelKey)
	if isNotFound(err) {
		return res, 0, notFound("channel_key %q was not imported: import the channel first", channelKey)
	}
	if err != nil {
		return res, 0, err
	}
	if !rec.GetImporting() {
		return res, 0, precondition("channel_key %q: the channel's import is finished; import the channel again first", channelKey)
	}
	chID := rec.GetChannel().GetId()
	// Checked before the first write, so that a refused batch leaves no trace.
	for i, m := range msgs[from:] {
		i += from
		if d.Member(m.AuthorID) == nil {
			return res, 0, notFound("messages[%d].author_id: member %s does not exist", i, m.AuthorID)
		}
		for _, r := range m.Reactions {
			for _, id := range r.GetMemberIds() {
				if d.Member(id) == nil {
					return res, 0, notFound("messages[%d].reactions: member %s does not exist", i, id)
				}
			}
		}
		for _, id := range m.AttachmentIDs {
			u, err := tx.read().Upload(id)
			if isNotFound(err) || (err == nil && u.GetUse() != storepb.UploadUse_UPLOAD_USE_UNSPECIFIED) {
				return res, 0, precondition("messages[%d].attachment_ids: upload %s does not exist or is in use", i, id)
			}
			if err != nil {
				return res, 0, err
			}
		}
	}
	cutoff := tx.cutoff()
	newest, err := newestEntryTime(tx.read(), chID, tx.seq)
	if err != nil {
		return res, 0, err
	}
	roots := map[string]*svcv1.Message{}
	var rootOrder []string
	first := tx.seq
	for i, in := range msgs[from:] {
		if took > 0 && tx.b.Load() >= importChangeLoad {
			break
		}
		took++
		prev, err := tx.read().Imported(in.Key)
		if err == nil && prev.GetId() != "" {
			res.Present++
			continue
		}
		if err != nil && !isNotFound(err) {
			return res, 0, err
		}
		if in.CreatedAtMs < cutoff {
			res.PastRetention++
			continue
		}
		if in.CreatedAtMs > tx.NowMs() {
			res.Future++
			continue
		}
		if in.CreatedAtMs < newest {
			res.OutOfOrder++
			continue
		}
		root, err := importRoot(tx, roots, chID, in.ThreadRootKey)
		if err != nil {
			return res, 0, err
		}
		if root == nil && in.ThreadRootKey != "" {
			res.Rootless++
		}
		m, err := e.writeImported(tx, chID, in, docs[from+i], root)
		if err != nil {
			return res, 0, err
		}
		if root != nil {
			if _, ok := roots[root.GetId()]; !ok {
				rootOrder = append(rootOrder, root.GetId())
			}
			root.ReplyCount++
			root.LastReplyAtMs = m.GetCreatedAtMs()
			roots[root.GetId()] = root
		}
		newest = in.CreatedAtMs
		res.Added++
	}
	if res.Added == 0 {
		return res, took, nil
	}
	taken := tx.seq - first
	// The change's one event comes next: the roots it changed carry its seq.
	for _, id := range rootOrder {
		root := roots[id]
		root.Seq = tx.nextSeq()
		if err := tx.mutate().PutMessage(root); err != nil {
			return res, 0, err
		}
	}
	rec = proto.Clone(rec).(*storepb.ChannelRecord)
	rec.ImportedThroughSeq = tx.seq
	if err := tx.putChannel(rec); err != nil {
		return res, 0, err
	}
	view, err := e.channelView(tx.read(), rec, tx.seq)
	if err != nil {
		return res, 0, err
	}
	_, err = tx.emitLogged(&storepb.LoggedEvent{
		Event:        &svcv1.Event{Kind: &svcv1.Event_ChannelUpdated{ChannelUpdated: view}},
		Audience:     toViewers(chID),
		ImportedSeqs: taken,
	})
	return res, took, err
}

// newestEntryTime is the created_at_ms of a channel's newest message, 0 when it has none.
func newestEntryTime(r *store.Reader, chID string, seq int64) (int64, error) {
	last, err := r.LastMessageSeq(chID, seq)
	if err != nil || last == 0 {
		return 0, err
	}
	en, err := r.Entry(chID, last)
	if err != nil {
		return 0, err
	}
	return en.GetCreatedAtMs(), nil
}

// importRoot finds the thread root a reply names by its source key: a top-level message of the
// channel (the batch's own changes to it first). nil when there is none.
func importRoot(tx *Tx, changed map[string]*svcv1.Message, chID, key string) (*svcv1.Message, error) {
	if key == "" {
		return nil, nil
	}
	rec, err := tx.read().Imported(key)
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if m, ok := changed[rec.GetId()]; ok {
		return m, nil
	}
	m, err := tx.read().Message(rec.GetId())
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if m.GetChannelId() != chID || m.GetThreadRootId() != "" {
		return nil, nil
	}
	return proto.Clone(m).(*svcv1.Message), nil
}

// writeImported writes one imported message at the next seq, with no event of its own.
func (e *Engine) writeImported(tx *Tx, chID string, in ImportMessage, doc search.Doc, root *svcv1.Message) (*svcv1.Message, error) {
	d := tx.Snap()
	tx.seq++
	seq := tx.seq
	// A placeholder claimed meanwhile: its history goes to the member who claimed it.
	for _, r := range in.Reactions {
		for i, id := range r.MemberIds {
			r.MemberIds[i] = claimedAs(d, id)
		}
		r.MemberIds = uniqueInOrder(r.MemberIds)
	}
	m := &svcv1.Message{
		Id:          uuid.Must(uuid.NewV7()).String(),
		ChannelId:   chID,
		AuthorId:    claimedAs(d, in.AuthorID),
		Text:        in.Text,
		CreatedAtMs: in.CreatedAtMs,
		EditedAtMs:  in.EditedAtMs,
		Reactions:   in.Reactions,
		Seq:         seq,
		CreatedSeq:  seq,
	}
	if root != nil {
		m.ThreadRootId = root.GetId()
	}
	imp := &storepb.ImportedRecord{ReplyToKey: in.ReplyToKey, PinnedAtMs: in.PinnedAtMs, PinnedBy: in.PinnedByID}
	if answered, err := importedReplyTarget(tx, in.ReplyToKey, chID, root); err != nil {
		return nil, err
	} else if answered != nil {
		m.ReplyTo = replyRef(answered.GetId(), answered.GetAuthorId(), answered)
		imp.ReplyLinked = true
	}
	var uploads []*storepb.UploadRecord
	if in.Deleted {
		blankDeleted(m)
	} else {
		for _, id := range in.AttachmentIDs {
			u, err := tx.read().Upload(id)
			if err != nil {
				return nil, err
			}
			uploads = append(uploads, u)
			m.Attachments = append(m.Attachments, attachmentOf(u))
		}
	}
	pinned, err := importedPin(tx, chID, m, in)
	if err != nil {
		return nil, err
	}
	imp.PinApplied = pinned
	entry := &storepb.MessageEntry{
		MessageId:   m.Id,
		AuthorId:    m.AuthorId,
		ThreadReply: root != nil,
		MentionIds:  mentions(d, m.Text),
		CreatedAtMs: m.CreatedAtMs,
	}
	if root != nil {
		entry.RootCreatedAtMs = root.GetCreatedAtMs()
	}
	if m.Deleted {
		entry.DeletedSeq = seq
	}
	if err := tx.mutate().AddMessage(m, entry); err != nil {
		return nil, err
	}
	if !m.Deleted {
		if err := tx.indexSent(m, doc); err != nil {
			return nil, err
		}
	}
	for _, u := range uploads {
		if err := tx.useUpload(u, storepb.UploadUse_UPLOAD_USE_MESSAGE, m.Id); err != nil {
			return nil, err
		}
	}
	if pinned {
		if err := tx.mutate().PutPin(chID, m.Id, m.Seq); err != nil {
			return nil, err
		}
	}
	imp.Id = m.Id
	if err := tx.mutate().PutImported(in.Key, imp); err != nil {
		return nil, err
	}
	// The placeholders it names, for ClaimMember.
	named := append([]string{m.AuthorId}, entry.GetMentionIds()...)
	for _, r := range m.GetReactions() {
		named = append(named, r.GetMemberIds()...)
	}
	slices.Sort(named)
	for _, id := range slices.Compact(named) {
		if mem := d.active(id); mem.GetMember().GetImported() {
			if err := tx.mutate().AddPlaceholderUse(id, m.Id); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

// importGap is how many seqs imported messages took just before a logged event: a follower
// replaying the log steps over them.
func importGap(le *storepb.LoggedEvent) int64 { return le.GetImportedSeqs() }

// importedThrough is where a member's unread count in a channel starts at the earliest:
// imported history is never unread.
func importedThrough(rec *storepb.ChannelRecord) int64 { return rec.GetImportedThroughSeq() }

// ImportEmoji adds a custom emoji of an export (an image of at most 256 KB, as POST /emoji
// takes) under name, made an emoji name as POST /emoji makes one from a file name, unless an
// emoji has that name already. It returns the name and the upload's result.
func (e *Engine) ImportEmoji(ctx context.Context, name string, data []byte) (*svcv1.EmojiUploadResult, error) {
	if e.opts.Bucket == nil || e.opts.Sandbox == nil {
		return nil, &Error{Code: CodeUnavailable, Msg: "this server takes no emoji uploads"}
	}
	if len(data) > EmojiMaxBytes {
		return &svcv1.EmojiUploadResult{File: displayFile(name), Status: rejectedStatus, Error: "it is larger than 256 KB"}, nil
	}
	u := e.newEmojiUpload(ctx, Caller{})
	u.server = true
	defer u.Abort()
	if err := u.addImage(name, data); err != nil {
		return nil, err
	}
	res, err := u.Finish()
	if err != nil {
		return nil, err
	}
	return res.GetResults()[0], nil
}

// ImportedIDs returns what each source key became, for the keys imported before (the others
// are left out): an import run again skips what is there without sending it.
func (e *Engine) ImportedIDs(keys []string) (map[string]string, error) {
	if n := len(keys); n > ImportBatchMax*(1+attachmentsMax) {
		return nil, invalid("keys has %d entries; the limit is %d", n, ImportBatchMax*(1+attachmentsMax))
	}
	out := map[string]string{}
	err := e.db.View(func(r *store.Reader) error {
		for _, k := range keys {
			rec, err := r.Imported(k)
			if isNotFound(err) {
				continue
			}
			if err != nil {
				return err
			}
			out[k] = rec.GetId()
		}
		return nil
	})
	return out, err
}

// uniqueInOrder drops the repeats of ids, keeping the first of each in its place.
func uniqueInOrder(ids []string) []string {
	out := ids[:0]
	for i, id := range ids {
		if !slices.Contains(ids[:i], id) {
			out = append(out, id)
		}
	}
	return out
}

// importedReplyTarget is the message an imported reply answers, found by its source key: a
// message of the same channel, and for a thread reply one of the same thread; nil when there
// is none (not imported, another channel, deleted).
func importedReplyTarget(tx *Tx, key, chID string, root *svcv1.Message) (*svcv1.Message, error) {
	if key == "" {
		return nil, nil
	}
	rec, err := tx.read().Imported(key)
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	m, err := tx.read().Message(rec.GetId())
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil || m.GetChannelId() != chID || m.GetDeleted() {
		return nil, err
	}
	if root != nil && m.GetId() != root.GetId() && m.GetThreadRootId() != root.GetId() {
		return nil, nil
	}
	return m, nil
}

// importedPin pins an imported message the export says was pinned, as PinMessage would: a
// top-level message that is not deleted, while the channel has fewer than pinsMax pins. It
// reports whether it did; the caller writes the pin's row.
func importedPin(tx *Tx, chID string, m *svcv1.Message, in ImportMessage) (bool, error) {
	if in.PinnedAtMs <= 0 || m.GetThreadRootId() != "" || m.GetDeleted() {
		return false, nil
	}
	pins, err := tx.read().Pins(chID)
	if err != nil || len(pins) >= pinsMax {
		return false, err
	}
	m.PinnedAtMs = max(in.PinnedAtMs, m.GetCreatedAtMs())
	m.PinnedBy = in.PinnedByID
	if m.PinnedBy == "" || tx.Snap().Member(m.PinnedBy) == nil {
		m.PinnedBy = m.GetAuthorId()
	}
	return true, nil
}
