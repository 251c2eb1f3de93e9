//go:build !race

package embedded

const raceOn = false
