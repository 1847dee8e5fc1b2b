// Package timeline runs a scenario's timeline: one small engine that is handed a clock, a seeded
// RNG and an Executor, and turns the steps (data) into calls at the right moments.
//
// Step times are scenario time; the engine's scenario.Clock turns them into the wall delays it
// sleeps. Every random choice the engine makes (the offset of "at: random") is drawn up front by
// Plan, so a seed replays the same schedule whatever the executor does.
package timeline
