//go:build !race

package lint

// raceEnabled: the race detector is on.
const raceEnabled = false
