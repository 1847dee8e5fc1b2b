//go:build race

package app

// raceEnabled: the race detector slows everything several times over, so wall-time bounds are not checked.
const raceEnabled = true
