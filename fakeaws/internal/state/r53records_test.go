package state

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// A client that keeps writing large record sets is refused once the account holds MaxRecordBytes, and
// deleting frees the room again.
func TestRecordBytesAreBounded(t *testing.T) {
	s := New(Config{AccountID: "123456789012", Region: "us-west-2", MaxRecordSetsPerZone: 1 << 20})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	z, _, err := s.CreateHostedZone(HostedZone{Name: "big.example", CallerReference: "r"}, now)
	if err != nil {
		t.Fatal(err)
	}
	ttl := int64(60)
	set := func(i int) RecordSet {
		var vals []string
		for range 120 {
			vals = append(vals, `"`+strings.Repeat("x", 250)+`"`)
		}
		return RecordSet{Name: fmt.Sprintf("t%d.big.example", i), Type: "TXT", TTL: &ttl, Values: vals}
	}
	var be *BatchError
	i := 0
	for ; i < 2*MaxRecordBytes/30000; i++ {
		_, err = s.ChangeRecordSets(z.ID, "", []RecordChange{{Action: "CREATE", Set: set(i)}}, now)
		if err != nil {
			break
		}
	}
	if !errors.As(err, &be) || !strings.Contains(be.Messages[0], "fakeaws keeps at most") {
		t.Fatalf("after %d large record sets: %v, want the byte bound", i, err)
	}
	if i < MaxRecordBytes/33000 { // 30 KB of values and their overheads
		t.Fatalf("refused after %d record sets of ~30 KB, want about %d", i, MaxRecordBytes/32500)
	}
	del := set(0)
	del.Name = CanonicalName(del.Name)
	if _, err := s.ChangeRecordSets(z.ID, "", []RecordChange{{Action: "DELETE", Set: del}}, now); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ChangeRecordSets(z.ID, "", []RecordChange{{Action: "CREATE", Set: set(i)}}, now); err != nil {
		t.Fatalf("after a delete: %v, want room for one more", err)
	}
}
