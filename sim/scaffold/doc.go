// Package scaffold writes a controller author's first scenario (restartsim init): from the CRDs of
// the kinds the controller owns and the controller binary's --help, a commented scenario with one
// object group per kind, a ready condition, the AWS mapping where the kind is known, an external
// strategy with the flags the binary takes, and a crash restart with one patch per group.
//
// What it cannot derive it writes as a placeholder, a string starting with scenario.Placeholder,
// which the scenario parser refuses at its field until someone fills it in.
package scaffold
