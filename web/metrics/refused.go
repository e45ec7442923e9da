package metrics

// Refused counts a call refused before it reached the interceptors (by the request gate that
// authenticates calls before their body is read), with the code it was answered with.
func (m *Metrics) Refused(procedure string, err error) {
	m.Unreached(procedure, codeOf(err))
}

// Unreached counts a call that ended before the gate and the interceptors (Connect refused its
// body, content type or procedure; the request intake refused it), with the code name it was
// answered with. The request log tells that code from the answer, and names the procedure
// "unknown" when no service has it: a label per path a client makes up would grow without
// bound.
func (m *Metrics) Unreached(procedure, code string) {
	m.rpcRequests.WithLabelValues(procedure, code).Inc()
}
