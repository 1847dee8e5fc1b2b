package clip

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	if got := String("short"); got != "short" {
		t.Fatalf("String(short) = %q", got)
	}
	long := strings.Repeat("A", 100_000)
	got := String(long)
	if len(got) > MaxEcho+32 || !strings.HasPrefix(got, strings.Repeat("A", MaxEcho)) || !strings.HasSuffix(got, "...(100000 bytes)") {
		t.Fatalf("String(100 KB) = %q (%d bytes)", got[:min(len(got), 300)], len(got))
	}
	// A multi-byte rune across the cut is not split.
	runes := strings.Repeat("é", 200) // 400 bytes
	if got := String(runes); !utf8.ValidString(got) {
		t.Fatalf("String cut a rune: %q", got)
	}
}

func TestArgs(t *testing.T) {
	long := strings.Repeat("x", 1000)
	got := Args([]any{long, []byte(long), errors.New(long), 42})
	for i := range 3 {
		if s := got[i].(string); len(s) > MaxEcho+32 {
			t.Errorf("arg %d not clipped: %d bytes", i, len(s))
		}
	}
	if got[3] != 42 {
		t.Errorf("a number changed: %v", got[3])
	}
}
