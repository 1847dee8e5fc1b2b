package fakeaws

// Observe records c as if the server had just answered it (tests of the recorder's memory bound).
func (s *Server) Observe(c Call) { s.observe(c) }
