// Package store keeps Hearth's state in Badger: the key layout, the codecs and the domain-shaped
// reads and writes the engine does inside one transaction.
//
// Values are protobuf (the API types of proto/svc/v1 where they fit, the records of
// proto/store/v1 otherwise), so rows written by older versions stay readable. Keys start with
// one prefix byte; the prefixes below are never renumbered. Ids are the API's string ids
// (UUIDv7), seqs are 8-byte big-endian so that keys sort by seq, and 0x00 separates two
// variable parts.
//
//	0x00 meta      name                       schema version and other single values
//	0x01 settings                             storepb.Settings
//	0x02 event     seq                        storepb.LoggedEvent (the event log)
//	0x10 member    member id                  storepb.MemberRecord
//	0x20 channel   channel id                 storepb.ChannelRecord
//	0x21 joined    channel id 0x00 member id  empty: the member joined the TEXT channel (OPT_IN)
//	0x30 message   message id                 svcv1.Message
//	0x31 chanlog   channel id 0x00 seq        storepb.MessageEntry of every message, by created_seq
//	0x32 toplevel  channel id 0x00 seq        message id of each top-level message, by created_seq
//	0x33 thread    root id 0x00 seq           message id of each reply, by created_seq
//	0x34 clientid  author id 0x00 client id   storepb.ClientIDRecord, with a 24 h TTL
//	0x35 here      channel id 0x00 seq        who a message's <!here> reached: 16-byte member ids, sorted
//	0x36 pin       channel id 0x00 message id the seq of the pin's event, 8 bytes
//	0x37 pollclose closes_at_ms message id    empty: an open poll that closes by itself, by time
//	0x40 readstate member id 0x00 channel id  last_read_seq, 8 bytes
//	0x50 role      role id                    svcv1.Role
//	0x60 block     blocker id 0x00 blocked id empty
//	0x61 mute      muter id 0x00 muted id     empty
//	0x70 invite    code                       storepb.InviteRecord
//	0x71 report    report id                  storepb.ReportRecord
//	0x72 reportof  message id 0x00 reporter id  report id: a reporter's one report of a message
//	0x73 audit     entry id                   svcv1.AuditEntry: the audit log (ids sort by time)
//	0x74 auditact  action (4 hex) 0x00 entry id  empty: the entries of one action
//	0x75 auditmem  member id 0x00 entry id    empty: the entries a member acted in or was the target of
//	0x76 slowmode  channel id 0x00 member id  the member's last message there (Unix ms, 8 bytes), with a 6 h TTL
//	0x80 upload    upload id                  storepb.UploadRecord: a file in the bucket
//	0x81 unused    created_at_ms id           empty: an upload nothing uses yet, by age
//	0x90 emoji     emoji id                   storepb.EmojiRecord: a custom emoji in the bucket
//	0x91 emojiname name                       emoji id: the names, unique, in name order
//	0x92 emojiver                             seq of the event of the latest emoji change, 8 bytes
//	0xA0 preview   URL hash                   storepb.PreviewRecord: a fetched link's preview (or failure)
//	0xA1 prevexp   expires_at_ms URL hash     empty: the cached previews by expiry
//	0xA2 previmg   image id                   storepb.PreviewImageRecord: an image in the bucket
//	0xB0 search    name                       the index's own values: the last op applied,
//	                                          whether the old messages are indexed, the
//	                                          analyzer version that made the lists
//	0xB1 searchop  op number                  storepb.SearchOp: a change the lists have not taken yet
//	0xB2 postings  term 0x00 first doc        a chunk of a term's posting list (engine/search)
//	0xB3 ordinal   channel id                 the channel's number in the postings (4 bytes)
//	0xC0 pluginkv  plugin name 0x00 key       a value a plugin stored with chat.store (JSON text)
//	0xC1 pluginuse plugin name                storepb.PluginStoreUsage: its bytes and keys
//	0xD0 account   subject                    storepb.AccountRecord: a built-in issuer account
//	0xD1 username  username                   the subject of the account holding it
//	0xD2 refresh   SHA-256 of the token       storepb.RefreshTokenRecord, with a TTL past its expiry
//	0xD3 revoked   family id                  storepb.RevokedFamilyRecord, with a TTL
//	0xD4 security  subject                    storepb.AccountSecurityRecord: TOTP (sealed), recovery codes, passkeys, email
//	0xD5 email     verified address           the subject of the account that verified it
//	0xD6 device    subject 0x00 family        storepb.DeviceRecord: a signed-in device, with a TTL
//	0xD7 resetlink SHA-256 of the token       storepb.AccountTokenRecord: a password reset link, with a TTL
//	0xD8 emaillink SHA-256 of the token       storepb.AccountTokenRecord: an address verification link, with a TTL
//	0xD9 devcookie SHA-256 of the token       storepb.AccountTokenRecord: a browser's device cookie, with a TTL
//	0xE0 pushsub   member id 0x00 sub id      storepb.PushSubscriptionRecord: a device for Web Push
//	0xE1 pushend   SHA-256 of the endpoint    the 0xE0 key of the subscription holding it
//	0xE2 notifyprefs member id                svcv1.NotificationPrefs: a member's preferences
//	0xE3 digestitem member id 0x00 seq        storepb.DigestItemRecord: a message waiting in a member's email digest, by created_seq
//	0xE4 digestdue  due_at_ms member id       empty: the members' digests by when each is next looked at
//	0xE5 digeststate member id                storepb.DigestStateRecord: what waits for a member, when their last digest went
//	0xE8 imported  source key                 storepb.ImportedRecord: what an import's person,
//	                                          channel, message, file or emoji became
//	0xE9 phuse     placeholder id 0x00 msg id empty: a message naming an imported placeholder
//	0xEA export    export id                  storepb.ExportRecord: an ExportMyData zip
//	0xF0 active    member id                  the member's last active UTC day (days since 1970, 4 bytes)
//	0xF1 daycount  UTC day (4 bytes)          messages sent that day (8 bytes)
//	0xF2 usage     kind                       count and bytes (8 + 8) of the bucket's uploads, emoji,
//	                                          previews; "counted" marks totals taken from every row
//
// 0xC0-0xCF belong to bots and plugins (0xC2 and up are free). A bot is a member row (its token
// hash in MemberRecord.bot_token_hash, its plugin in MemberRecord.plugin); a plugin's source is a
// file in <data>/plugins, not a row.
//
// Indexes that only serve lookups of small state (login to member, username to member, bot
// token hash to bot, member set to DM) are not stored: the engine derives them in memory from
// the member and channel rows when it opens the database.
//
// The chanlog index is what makes the unread counters and the retention purge cheap: counting
// unread messages is a scan of one channel from a seq, and deleting everything older than a
// time is a scan of each channel from its start up to the first newer message. The writer's
// clock never goes back, so along a channel's log created_at_ms only grows: the messages past
// retention are a prefix of it, which readers skip with a binary search (FirstKeptEntry) while
// the purge has not deleted them yet. A thread is as old as its root (MessageEntry carries the
// root's time), and the purge deletes a root's replies before, or with, the root itself, so no
// reply ever outlives its root in the store.
//
// Replies, pins, group mentions and polls (conversation.go, 0x35-0x3F; 0x38 and up are free)
// keep beside the message row only what a reader could not afford to compute: the members a
// <!here> reached, looked up by the mention counters with one point read per such message (an
// <!everyone> is a flag of the channel log entry, costing nothing); each channel's pins (at
// most 50), so that ListPins reads no message it does not list; and the polls that close by
// themselves, by time, so that a start finds the ones due while the server was down.
//
// An upload row stands for the object files/<id> in the bucket, and exists while anything may
// point at it: the object is stored before its row is written, and the row is deleted (with
// the message or setting that used the file) before the object is. So a row never points at a
// missing object; an object without a row is left over from a crash and swept by the engine.
// The unused index (created_at_ms is 8 bytes, big-endian, so it sorts by age) is what the
// engine's cleanup scans to delete uploads that nothing used within a day.
//
// An emoji row stands for the object emoji/<id> by the same rule as an upload row. Its name row
// makes names unique inside the writer's transaction and lists the emoji sorted by name; the
// version row changes with every emoji change, so GET /emoji answers 304 (or from a cached
// body) after one point read.
//
// Link previews (0xA0-0xAF) are a cache: a preview row per fetched URL (keyed by the
// SHA-256 of the normalized URL, 32 bytes), listed by expiry in 0xA1 (expires_at_ms is 8
// bytes, big-endian) for the cleanup. A preview's image is an object previews/<id> with a row
// of its own, which follows the rule of upload rows: stored before its row is written,
// deleted after its row is.
//
// The search index (engine/search) keeps its rows under 0xB0-0xBF: a change to a message
// writes its SearchOp row in the same transaction, and the index folds the ops into its
// posting lists afterwards, in transactions of its own (search.go here keeps it in its range).
//
// The 0xD0-0xDF rows belong to the built-in issuer (Accounts, which web adapts to auth's
// AccountStore), not to the engine: the engine's writer never reads or writes them, and
// Accounts writes only them, each call in a Badger transaction of its own, beside the
// writer's. That is safe because Badger checks every read-write transaction for conflicts
// with the keys it read: two transactions touching disjoint keys both commit, and of two
// touching the same account or refresh token the later fails with a conflict (Accounts
// retries it, or reports a concurrent refresh token rotation as a reuse) instead of
// overwriting the other. No write is lost.
//
// The audit log (audit.go) keeps one row per entry under an id that is a UUIDv7 of the entry's
// time and the seq of its audit_appended event, so key order is time order: ListAuditLog reads
// it backwards, and the audit purge deletes from its start the entries older than they are
// kept. 0x73-0x7F belong to moderation (0x77 and up are free).
//
// The 0xF0-0xF3 rows are what the admins' status screen reads (operations.go): kept in the
// transactions of the changes they count (a message sent, a row of a file put or deleted), so
// that GetServerStatus costs point reads, never a scan of the messages or a listing of the
// bucket. The usage totals are moved by PutUpload, DeleteUpload, PutEmoji, DeleteEmoji,
// PutPreviewImage and DeletePreviewImage; on a database older than them, the engine counts
// them once from the rows (CountUsage). 0xF3 is free.
//
// Imported history (0xE8-0xEF, imports.go) keeps the chanlog rule: an import writes a
// channel's messages oldest first, each with its original created_at_ms, and the channel
// takes no other message while an import of it is under way (ChannelRecord.importing), so
// along its log created_at_ms still only grows; a message older than what the channel already
// holds is left out. Imported messages take seqs with no event of their own: the change's one
// event (channel_updated) says how many seqs before it they took (LoggedEvent.imported_seqs),
// and ChannelRecord.imported_through_seq keeps them out of the unread counts. The source key
// of each imported thing maps to its id, so an import run again (after a crash too) adds only
// what is missing. An export's zip is the object exports/<id>, by the rule of upload rows.
//
// Backup (backup.go) writes the whole database, every prefix above and any added later, in
// Badger's backup format from one read transaction; Load fills a new database from it.
package store
