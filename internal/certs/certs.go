// Package certs makes the harness's X.509 certificates: a throwaway self-signed pair for a server
// that must start with TLS, a local cluster's CA and the certificates it signs, and certificates
// signed over a caller's template and randomness (an Ingress's, made from a seed). client-go's
// util/cert makes the self-signed pair and the CA; the rest is one signing step over a template.
package certs

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net"
	"os"
	"path/filepath"

	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// File names WriteSelfSigned writes, as controller-runtime's webhook server reads them.
const (
	CertFile = "tls.crt"
	KeyFile  = "tls.key"
)

// WriteSelfSigned writes CertFile and KeyFile into dir (made 0700 when missing): a certificate for
// localhost and 127.0.0.1 that no client checks, for a server that will not start without one.
func WriteSelfSigned(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	crt, key, err := cert.GenerateSelfSignedCertKey("localhost", []net.IP{net.IPv4(127, 0, 0, 1)}, nil)
	if err != nil {
		return err
	}
	if err := cert.WriteCert(filepath.Join(dir, CertFile), crt); err != nil {
		return err
	}
	return keyutil.WriteKey(filepath.Join(dir, KeyFile), key)
}

// CA is a certificate authority that signs certificates for new keys.
type CA struct {
	cert *x509.Certificate
	key  crypto.Signer
}

// NewCA makes a CA with a new P-256 key and a self-signed certificate named commonName.
func NewCA(commonName string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	crt, err := cert.NewSelfSignedCACert(cert.Config{CommonName: commonName}, key)
	if err != nil {
		return nil, err
	}
	return &CA{cert: crt, key: key}, nil
}

// CertPEM is the CA's certificate in PEM.
func (ca *CA) CertPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: cert.CertificateBlockType, Bytes: ca.cert.Raw})
}

// KeyPEM is the CA's private key in PEM (PKCS #8).
func (ca *CA) KeyPEM() ([]byte, error) { return KeyPEM(ca.key) }

// Issue signs tmpl (subject, validity, usages and names, as the caller needs) for a new P-256 key and
// returns the certificate and the key in PEM.
func (ca *CA) Issue(tmpl *x509.Certificate) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	return Sign(rand.Reader, tmpl, ca.cert, key, ca.key)
}

// Sign makes the certificate of tmpl for key, signed by parent's parentKey (tmpl and key themselves
// for a self-signed one), with whatever randomness signing asks for read from r, and returns the
// certificate and the key in PEM (PKCS #8). With a deterministic key (ed25519) and r, the bytes are.
func Sign(r io.Reader, tmpl, parent *x509.Certificate, key, parentKey crypto.Signer) (certPEM, keyPEM []byte, err error) {
	der, err := x509.CreateCertificate(r, tmpl, parent, key.Public(), parentKey)
	if err != nil {
		return nil, nil, err
	}
	if keyPEM, err = KeyPEM(key); err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: cert.CertificateBlockType, Bytes: der}), keyPEM, nil
}

// KeyPEM is key in PEM, as PKCS #8 (which every key type has, unlike keyutil's per-type blocks).
func KeyPEM(key crypto.Signer) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}
