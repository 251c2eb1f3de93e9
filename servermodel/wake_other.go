//go:build !linux

package servermodel

import "time"

// preciseAt has no precise clock here: waits are Go timers.
func preciseAt(time.Time) <-chan struct{} { return nil }
