//go:build race

package workload

// raceOn: the race detector slows every call several times over.
const raceOn = true
