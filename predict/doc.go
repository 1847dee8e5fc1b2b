// Package predict forecasts a restart at a larger fleet from one measured run: it fits a queue model
// to the run's AWS call log (each kind's calls an object, its workers and pace, the restart's fixed
// start-up, the throttle buckets in force), checks that the model explains the run it was fitted
// on, and then simulates the restart queue at the new size (package queue).
//
// A real controller's timers run in real time, so a restart at production size costs production
// time; a small run and a validated model give the large figure in seconds. The controller's queue
// order is not known (it is not name order), so blind times come with the spread over random
// orders rather than as one number.
package predict
