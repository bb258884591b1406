//go:build race

package cpu

// raceEnabled reports a -race build, where sync.Pool drops items on purpose
// and allocation counts mean nothing.
const raceEnabled = true
