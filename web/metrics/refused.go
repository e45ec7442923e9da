package metrics

// Refused counts a call refused before it reached the interceptors (by the request gate that
// authenticates calls before their body is read), with the code it was answered with.
func (m *Metrics) Refused(procedure string, err error) {
	m.rpcRequests.WithLabelValues(procedure, codeOf(err)).Inc()
}
