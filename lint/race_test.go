//go:build race

package lint

// raceEnabled: the race detector is on (it slows reading tenfold and
// changes what the heap holds).
const raceEnabled = true
