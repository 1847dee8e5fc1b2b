package state

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

// Changes kept for GetChange take at most MaxChangeBytes: the oldest are forgotten (NoSuchChange), the
// newest kept.
func TestChangesForgetTheOldestPastTheirBytes(t *testing.T) {
	s := New(Config{AccountID: "123456789012", Region: "us-west-2"})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	z, first, err := s.CreateHostedZone(HostedZone{Name: "changes.example", CallerReference: "r"}, now)
	if err != nil {
		t.Fatal(err)
	}
	ttl, comment := int64(60), strings.Repeat("c", MaxCommentChars)
	var last ChangeInfo
	n := 2 * MaxChangeBytes / changeBytes(ChangeInfo{ID: first.ID, Comment: comment})
	for i := range n {
		set := RecordSet{Name: "x.changes.example", Type: "A", TTL: &ttl, Values: []string{"10.0.0." + string(rune('1'+i%9))}}
		if last, err = s.ChangeRecordSets(z.ID, comment, []RecordChange{{Action: "UPSERT", Set: set}}, now); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.r53.changeBytes; got > MaxChangeBytes || got < MaxChangeBytes-changeBytes(last) {
		t.Fatalf("changes keep %d bytes after %d changes, want just under %d", got, n, MaxChangeBytes)
	}
	var qe *query.Error
	if _, err := s.Change(first.ID, now); !errors.As(err, &qe) || qe.Code != "NoSuchChange" {
		t.Fatalf("the first change: %v, want NoSuchChange", err)
	}
	if _, err := s.Change(last.ID, now); err != nil {
		t.Fatalf("the last change: %v", err)
	}
}
