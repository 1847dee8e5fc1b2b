package workload

import (
	"bytes"
	"testing"
)

// TestSelfSignedCertIsDeterministic: a TLS plan gives the same certificate and key bytes every time,
// so a replayed seed creates identical Secrets; another key seed gives another certificate.
func TestSelfSignedCertIsDeterministic(t *testing.T) {
	plan := &TLSPlan{KeySeed: "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", SerialNumber: 7}
	c1, k1, err := selfSignedCert(plan, "a.example.com")
	if err != nil {
		t.Fatal(err)
	}
	c2, k2, _ := selfSignedCert(plan, "a.example.com")
	if !bytes.Equal(c1, c2) || !bytes.Equal(k1, k2) {
		t.Fatal("the same plan gave different certificates")
	}
	other := *plan
	other.KeySeed = "ff" + plan.KeySeed[2:]
	if c3, _, _ := selfSignedCert(&other, "a.example.com"); bytes.Equal(c1, c3) {
		t.Fatal("another key seed gave the same certificate")
	}
	if _, _, err := selfSignedCert(&TLSPlan{KeySeed: "zz"}, "a.example.com"); err == nil {
		t.Fatal("a malformed key seed was accepted")
	}
}
