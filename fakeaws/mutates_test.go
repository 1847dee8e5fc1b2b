package fakeaws_test

import (
	"testing"

	"github.com/restartsim/restartsim/fakeaws"
)

// Reads are the Describe, List, Get and Head operations of every service; everything else changes state.
func TestCallMutates(t *testing.T) {
	for op, want := range map[string]bool{
		"DescribeTargetHealth": false, "ListResourceRecordSets": false, "GetParameter": false, "HeadBucket": false,
		"RegisterTargets": true, "CreateFleet": true, "ChangeResourceRecordSets": true, "PutObject": true,
	} {
		if got := (&fakeaws.Call{Operation: op}).Mutates(); got != want {
			t.Errorf("%s: Mutates %v, want %v", op, got, want)
		}
	}
}
