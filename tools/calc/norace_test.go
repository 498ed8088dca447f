//go:build !race

package calc

// raceEnabled reports whether the race detector is on.
const raceEnabled = false
