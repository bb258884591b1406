package gemm

import "github.com/tessera-go/tessera/internal/par"

// runTeam calls fn(w) for w in [0, p) on the persistent helpers of
// internal/par's team (fn(0) on the caller), skipping a call that no
// helper has started when fn(0) returns: every product splits its work
// into units claimed from shared counters (see shares), so any subset of
// the calls that includes fn(0) completes it.
func runTeam(p int, fn func(w int)) { par.RunClaimed(p, fn) }

// runTeamAll calls every fn(w), for work split statically (the
// read-bandwidth anchor of the benchmarks).
func runTeamAll(p int, fn func(w int)) { par.Run(p, fn) }
