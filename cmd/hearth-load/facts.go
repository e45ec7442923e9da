package main

import (
	"bytes"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"

	svcv1 "hearth/proto/svc/v1"
)

// eventFacts is what the tool checks of an event: its seq, whether it is a resync, and the
// text of a created message. The tool's own reader takes them straight from the encoding, as
// ircload takes a PRIVMSG's fields from its line: decoding the whole Event put every message,
// its strings and its nested records on the heap, about an eighth of the tool's CPU in the
// standard run with its garbage collection. What the server encodes is tested by its own
// tests; the tool checks order, loss and duplicates.
type eventFacts struct {
	seq     int64
	resync  bool
	created bool
	// text is the created message's text. From the tool's reader it shares the reader's
	// buffer: it is good until the stream's next read.
	text []byte
}

// factsOf takes the facts of an event the Connect client decoded.
func factsOf(ev *svcv1.Event) eventFacts {
	f := eventFacts{seq: ev.GetSeq(), resync: ev.GetResync()}
	if mc := ev.GetMessageCreated(); mc != nil {
		f.created, f.text = true, []byte(mc.GetText())
	}
	return f
}

// The field numbers, from the generated descriptors, so that they follow the .proto files.
var (
	eventFields  = (&svcv1.Event{}).ProtoReflect().Descriptor().Fields()
	fieldSeq     = eventFields.ByName("seq").Number()
	fieldResync  = eventFields.ByName("resync").Number()
	fieldCreated = eventFields.ByName("message_created").Number()
	fieldText    = (&svcv1.Message{}).ProtoReflect().Descriptor().Fields().ByName("text").Number()
	isKind       = kindNumbers()
)

// kindNumbers marks the field numbers of the Event's kind oneof.
func kindNumbers() map[protowire.Number]bool {
	m := map[protowire.Number]bool{}
	fs := eventFields.ByName("resync").ContainingOneof().Fields()
	for i := range fs.Len() {
		m[fs.Get(i).Number()] = true
	}
	return m
}

// decode reads the facts from an encoded Event, skipping every other field. As protobuf's
// decoding does, the last of the kind's oneof fields is the event's kind, and the last text
// of a message_created (whose occurrences merge) is its text.
func (f *eventFacts) decode(b []byte) error {
	*f = eventFacts{}
	return eachField(b, "an event", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		if num != fieldCreated && isKind[num] {
			f.created, f.text = false, nil
		}
		switch {
		case num == fieldSeq && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			f.seq = int64(v)
			return n, nil
		case num == fieldResync && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			f.resync = v != 0
			return n, nil
		case num == fieldCreated && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return n, nil
			}
			f.resync, f.created = false, true
			return n, f.messageText(v)
		}
		return protowire.ConsumeFieldValue(num, typ, b), nil
	})
}

// messageText takes the text field from an encoded Message.
func (f *eventFacts) messageText(b []byte) error {
	return eachField(b, "a message_created", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		if num == fieldText && typ == protowire.BytesType {
			v, n := protowire.ConsumeBytes(b)
			if n >= 0 {
				f.text = v
			}
			return n, nil
		}
		return protowire.ConsumeFieldValue(num, typ, b), nil
	})
}

// eachField calls field for every field of the encoded message b, with the bytes from the
// field's value on; field answers how many of them the value took, negative for protowire's
// errors, as protowire's Consume functions do. what names the message in the errors.
func eachField(b []byte, what string, field func(num protowire.Number, typ protowire.Type, b []byte) (int, error)) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("%s that does not decode: %w", what, protowire.ParseError(n))
		}
		b = b[n:]
		n, err := field(num, typ, b)
		if err != nil {
			return err
		}
		if n < 0 {
			return fmt.Errorf("%s that does not decode: field %d: %w", what, num, protowire.ParseError(n))
		}
		b = b[n:]
	}
	return nil
}

// parseText reads a message of this run; ok is false for anything else (other runs, people).
func parseText(text []byte, run string) (k int64, sentNs int64, ok bool) {
	prefix, rest, _ := bytes.Cut(text, space)
	r, rest, _ := bytes.Cut(rest, space)
	kb, rest, _ := bytes.Cut(rest, space)
	nsb, _, _ := bytes.Cut(rest, space)
	if string(prefix) != textPrefix || string(r) != run {
		return 0, 0, false
	}
	k, ok1 := decimal(kb)
	ns, ok2 := decimal(nsb)
	return k, ns, ok1 && ok2
}

var space = []byte{' '}

// decimal reads a non-negative decimal int64 (no sign), as strconv.ParseInt would without
// the allocation of its argument.
func decimal(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return int64(v), v <= math.MaxInt64
}
