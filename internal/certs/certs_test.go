package certs

import (
	"bytes"
	"crypto/ed25519"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"
)

func TestWriteSelfSignedServesLocalhost(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	if err := WriteSelfSigned(dir); err != nil {
		t.Fatal(err)
	}
	pair, err := tls.LoadX509KeyPair(filepath.Join(dir, CertFile), filepath.Join(dir, KeyFile))
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"localhost", "127.0.0.1"} {
		if err := leaf.VerifyHostname(host); err != nil {
			t.Errorf("%s: %v", host, err)
		}
	}
}

func TestIssuedCertificatesChainToTheCA(t *testing.T) {
	ca, err := NewCA("test-ca")
	if err != nil {
		t.Fatal(err)
	}
	crt, key, err := ca.Issue(&x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "server"},
		NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(time.Hour), DNSNames: []string{"server.test"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(crt, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(ca.CertPEM()) {
		t.Fatal("the CA's PEM holds no certificate")
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "server.test"}); err != nil {
		t.Error(err)
	}
	if _, err := ca.KeyPEM(); err != nil {
		t.Error(err)
	}
}

// A seeded key and randomness give the same bytes each time: a fleet's certificates follow its seed.
func TestSignIsDeterministicGivenItsInputs(t *testing.T) {
	seed := bytes.Repeat([]byte{7}, ed25519.SeedSize)
	sign := func() ([]byte, []byte) {
		priv := ed25519.NewKeyFromSeed(seed)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "a.test"},
			NotBefore: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2045, 1, 1, 0, 0, 0, 0, time.UTC)}
		crt, key, err := Sign(rand.NewChaCha8([32]byte(seed)), tmpl, tmpl, priv, priv)
		if err != nil {
			t.Fatal(err)
		}
		return crt, key
	}
	c1, k1 := sign()
	c2, k2 := sign()
	if !bytes.Equal(c1, c2) || !bytes.Equal(k1, k2) {
		t.Error("the same key, template and randomness gave different bytes")
	}
	if _, err := tls.X509KeyPair(c1, k1); err != nil {
		t.Error(err)
	}
}
