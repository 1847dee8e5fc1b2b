// Package queue simulates a controller's restart queue: workers that take objects in turn and make
// each object's AWS calls one after another, every call waiting for a token of its AWS bucket.
//
// Tokens go to calls in the order they ask, so workers that wait on one bucket take equal shares of
// it, which is what AWS's per-account buckets do to a controller whose kinds re-read side by side.
// It is a discrete-event simulation: time jumps from one call to the next, so a queue of a
// hundred thousand objects takes a fraction of a second.
package queue
