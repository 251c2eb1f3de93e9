//go:build race

package check

// raceOn: the race detector slows every call several times over.
const raceOn = true
