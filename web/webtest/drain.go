package webtest

import svcv1 "hearth/proto/svc/v1"

// Rest waits for the stream to end and returns the events it received that no Next read
// (logged ones and resync only, unless Ephemeral; audit_appended only with Audit): for a stream that must end with nothing more.
func (s *Stream) Rest() []*svcv1.Event {
	s.t.Helper()
	s.Ended()
	var out []*svcv1.Event
	for {
		ev, ok := s.events.Take()
		if !ok {
			return out
		}
		if !s.dropped(ev) {
			out = append(out, ev)
		}
	}
}
