//go:build race

package embedded

// raceOn: the race detector slows every call several times over.
const raceOn = true
