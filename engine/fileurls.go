package engine

import (
	"net/url"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"hearth/blob"
	svcv1 "hearth/proto/svc/v1"
)

// File URLs. What the engine stores and logs never holds a signed URL, since it would expire:
// an Attachment is stored with its id and name and no url; a profile picture or community
// icon, which the API shows as a plain URL string, is stored as the unsigned reference
// "/files/<id>/<name>" (fileRef). SignURLs turns both into fresh signed URLs on the way out, so
// a message, channel, member or server card is signed whenever it reaches a client: in a
// response, a live event or a replayed one. Who receives what is decided before that, by the
// same rules as for everything else; SignURLs only signs what the recipient already gets.

// fileRef is the unsigned reference to an upload kept where the API has a URL string.
func fileRef(id, name string) string {
	return "/files/" + url.PathEscape(id) + "/" + url.PathEscape(blob.SafeName(name))
}

// parseFileRef reads a file URL back: "/files/<id>/<name>", with or without a query (the
// signature, which is ignored), and, when base is given, also with base in front. ok is false
// for anything else.
func parseFileRef(s, base string) (id, name string, ok bool) {
	if base != "" && strings.HasPrefix(s, base+"/") {
		s = s[len(base):]
	}
	s, _, _ = strings.Cut(s, "?")
	rest, found := strings.CutPrefix(s, "/files/")
	if !found {
		return "", "", false
	}
	rawID, rawName, found := strings.Cut(rest, "/")
	if !found || strings.Contains(rawName, "/") {
		return "", "", false
	}
	id, err1 := url.PathUnescape(rawID)
	name, err2 := url.PathUnescape(rawName)
	if err1 != nil || err2 != nil || id == "" || name == "" {
		return "", "", false
	}
	return id, name, true
}

// SignURLs returns m with a fresh signed URL in every file it refers to: Attachment.url,
// Member.avatar_url and GetServerInfoResponse.icon_url. m is never changed (it may be shared
// with the Snapshot, the hub or other streams): when something needs signing, the copy is.
// The web layer calls it on every response and event it encodes, once per encoding.
func (e *Engine) SignURLs(m proto.Message) proto.Message {
	if e.opts.Signer == nil || m == nil {
		return m
	}
	now := e.now()
	if !e.signURLs(m.ProtoReflect(), false, now) {
		return m
	}
	m = proto.Clone(m)
	e.signURLs(m.ProtoReflect(), true, now)
	return m
}

var (
	attachmentType = (&svcv1.Attachment{}).ProtoReflect().Descriptor().FullName()
	memberType     = (&svcv1.Member{}).ProtoReflect().Descriptor().FullName()
	serverInfoType = (&svcv1.GetServerInfoResponse{}).ProtoReflect().Descriptor().FullName()
)

// signURLs reports whether m holds a file reference; with apply it also signs them in place.
func (e *Engine) signURLs(m protoreflect.Message, apply bool, now time.Time) bool {
	found := false
	switch m.Descriptor().FullName() {
	case attachmentType:
		a := m.Interface().(*svcv1.Attachment)
		if a.GetId() == "" {
			return false
		}
		if apply {
			a.Url = e.opts.Signer.URL(a.GetId(), a.GetName(), now)
		}
		return true
	case memberType:
		mm := m.Interface().(*svcv1.Member)
		return e.signRef(&mm.AvatarUrl, apply, now)
	case serverInfoType:
		si := m.Interface().(*svcv1.GetServerInfoResponse)
		if found = e.signRef(&si.IconUrl, apply, now); found && !apply {
			return true
		}
	}
	for _, fd := range fileFields(m.Descriptor()) {
		if !m.Has(fd) {
			continue
		}
		if fd.IsList() {
			l := m.Get(fd).List()
			for i := 0; i < l.Len(); i++ {
				if e.signURLs(l.Get(i).Message(), apply, now) {
					if !apply {
						return true
					}
					found = true
				}
			}
			continue
		}
		if e.signURLs(m.Get(fd).Message(), apply, now) {
			if !apply {
				return true
			}
			found = true
		}
	}
	return found
}

// signRef signs a stored fileRef in place; external URLs are left alone.
func (e *Engine) signRef(s *string, apply bool, now time.Time) bool {
	id, name, ok := parseFileRef(*s, "")
	if !ok {
		return false
	}
	if apply {
		*s = e.opts.Signer.URL(id, name, now)
	}
	return true
}

// fileFields lists the message fields (singular or repeated) of a type through which a file
// reference can be reached, so that SignURLs looks at nothing else: a GetState of a thousand
// members costs a string check per member.
func fileFields(d protoreflect.MessageDescriptor) []protoreflect.FieldDescriptor {
	if v, ok := fileFieldCache.Load(d.FullName()); ok {
		return v.([]protoreflect.FieldDescriptor)
	}
	var out []protoreflect.FieldDescriptor
	fields := d.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.Message() != nil && !fd.IsMap() && reachesFile(fd.Message(), map[protoreflect.FullName]bool{}) {
			out = append(out, fd)
		}
	}
	fileFieldCache.Store(d.FullName(), out)
	return out
}

var fileFieldCache sync.Map // protoreflect.FullName -> []protoreflect.FieldDescriptor

// reachesFile reports whether a message of type d can hold a file reference.
func reachesFile(d protoreflect.MessageDescriptor, seen map[protoreflect.FullName]bool) bool {
	switch d.FullName() {
	case attachmentType, memberType, serverInfoType:
		return true
	}
	if seen[d.FullName()] {
		return false
	}
	seen[d.FullName()] = true
	fields := d.Fields()
	for i := 0; i < fields.Len(); i++ {
		if m := fields.Get(i).Message(); m != nil && !fields.Get(i).IsMap() && reachesFile(m, seen) {
			return true
		}
	}
	return false
}
