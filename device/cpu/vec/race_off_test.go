//go:build !race

package vec

// raceEnabled reports a -race build (see skipSweepUnderRace).
const raceEnabled = false
