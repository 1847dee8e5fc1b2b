// Package clip shortens client input before an error message echoes it, so that an answer never grows
// with what a client sent (a 100 KB Action would otherwise come back whole).
package clip

import (
	"fmt"
	"unicode/utf8"
)

// MaxEcho is how many bytes of one input value an error message repeats.
const MaxEcho = 256

// String returns s, or its first MaxEcho bytes (cut at a rune boundary) followed by a marker saying how
// long it was.
func String(s string) string {
	if len(s) <= MaxEcho {
		return s
	}
	cut := MaxEcho
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s...(%d bytes)", s[:cut], len(s))
}

// Args clips every string-like argument of a format call (strings, byte slices, errors, Stringers) and
// leaves the rest (numbers) alone.
func Args(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case string:
			out[i] = String(v)
		case []byte:
			out[i] = String(string(v))
		case error:
			out[i] = String(v.Error())
		case fmt.Stringer:
			out[i] = String(v.String())
		default:
			out[i] = a
		}
	}
	return out
}
