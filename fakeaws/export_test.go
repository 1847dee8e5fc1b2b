package fakeaws

// Observe records c as if the server had just answered it (tests of the recorder's memory bound).
func (s *Server) Observe(c Call) { s.observe(c) }

// BodiesInFlight is what request bodies hold now: how many are being read, the bytes bodies being read or
// served have reserved, and how many requests the body limits have refused.
func (s *Server) BodiesInFlight() (bodies, bytes, refused int64) {
	return s.bodies.readers.Load(), s.bodies.held.Load(), s.bodies.refusals.Load()
}

// S3StoredBytes is what S3 holds or has reserved.
func (s *Server) S3StoredBytes() int64 { return s.s3quota.Used() }

// Connections counts the connections holding a slot and those closed at the limit to make room.
func (s *Server) Connections() (open, closedForRoom int64) {
	return s.conns.open.Load(), s.conns.closed.Load()
}
