package lbmodel

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// MaxNameLength is the longest load balancer or target group name ELBv2 accepts.
const MaxNameLength = 32

// resourceName is LBC's naming scheme, k8s-<a>-<b>-<hash>: two readable parts of at most 8 characters each
// (only letters and digits, since ELBv2 names allow nothing else besides hyphens) and 10 hex digits of a hash
// over everything that makes the resource unique, so a name is deterministic and never longer than 32.
func resourceName(a, b string, unique ...string) string {
	h := sha256.New()
	for _, u := range unique {
		h.Write([]byte(u))
		h.Write([]byte{0}) // separator: ("ab","c") and ("a","bc") must differ
	}
	sum := hex.EncodeToString(h.Sum(nil))[:10]
	name := "k8s-" + namePart(a) + "-"
	if p := namePart(b); p != "" {
		name += p + "-"
	}
	return name + sum
}

func namePart(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
		if b.Len() == 8 {
			break
		}
	}
	return b.String()
}
