// Package poll waits for a condition on apimachinery's wait loop, for the harness's waits that
// wait.PollUntilContextTimeout does not fit as it is: the condition runs under the caller's
// context, so a timeout never cuts a check half-way (its error would then hide what was waited
// for); the pause after a check may grow with what the check cost; and the caller learns whether
// its timeout passed, its context ended or an abort channel closed, each of which it reports in
// its own words.
package poll
