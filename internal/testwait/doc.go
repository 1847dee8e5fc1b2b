// Package testwait is for tests only: it waits for a condition to hold, failing the test after a
// timeout that RESTARTSIM_TEST_TIMEOUT_SCALE multiplies on a slow machine. A test that checks
// something did not happen first waits here for a positive sign that it had the chance to (a
// counter, an event, an empty queue), never for a fixed time.
package testwait
