package localcluster

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/restartsim/restartsim/internal/certs"
)

// pki is the cluster's certificate authority, the serving and client certificates signed by it, and
// the service-account signing key. Everything lives in one directory with private keys at 0600.
type pki struct {
	dir    string
	ca     *certs.CA
	serial int64
}

// Paths of the files newPKI writes, relative to its directory.
const (
	caCertFile      = "ca.crt"
	caKeyFile       = "ca.key"
	servingCertFile = "apiserver.crt"
	servingKeyFile  = "apiserver.key"
	saKeyFile       = "sa.key"
	saPubFile       = "sa.pub"
)

// certValidity covers any run; the cluster is thrown away with its directory.
const certValidity = 365 * 24 * time.Hour

func newPKI(dir string) (*pki, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	ca, err := certs.NewCA("restartsim-local-ca")
	if err != nil {
		return nil, err
	}
	p := &pki{dir: dir, ca: ca, serial: 1}
	if err := os.WriteFile(p.path(caCertFile), ca.CertPEM(), 0o644); err != nil {
		return nil, err
	}
	key, err := ca.KeyPEM()
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(p.path(caKeyFile), key, 0o600); err != nil {
		return nil, err
	}
	return p, p.writeServiceAccountKey()
}

func (p *pki) template(subject pkix.Name) *x509.Certificate {
	p.serial++
	now := time.Now()
	return &x509.Certificate{
		SerialNumber: big.NewInt(p.serial),
		Subject:      subject,
		NotBefore:    now.Add(-time.Minute),
		NotAfter:     now.Add(certValidity),
	}
}

// servingCert writes kube-apiserver's certificate, valid for loopback and the in-cluster names of
// the kubernetes Service (firstServiceIP is the Service's ClusterIP).
func (p *pki) servingCert(firstServiceIP net.IP) error {
	tmpl := p.template(pkix.Name{CommonName: "kube-apiserver"})
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1), firstServiceIP}
	tmpl.DNSNames = []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
		"kubernetes.default.svc.cluster.local"}
	return p.issue(tmpl, servingCertFile, servingKeyFile)
}

// clientCert writes a client certificate for user in groups (the API server maps CN to the user and
// O to the groups) and returns the file names of the certificate and its key.
func (p *pki) clientCert(name, user string, groups ...string) (certFile, keyFile string, err error) {
	tmpl := p.template(pkix.Name{CommonName: user, Organization: groups})
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	certFile, keyFile = name+".crt", name+".key"
	return certFile, keyFile, p.issue(tmpl, certFile, keyFile)
}

func (p *pki) issue(tmpl *x509.Certificate, certFile, keyFile string) error {
	crt, key, err := p.ca.Issue(tmpl)
	if err != nil {
		return err
	}
	if err := os.WriteFile(p.path(certFile), crt, 0o644); err != nil {
		return err
	}
	return os.WriteFile(p.path(keyFile), key, 0o600)
}

// writeServiceAccountKey writes the key pair kube-apiserver signs and verifies service-account tokens
// with, and kube-controller-manager signs the legacy token secrets with.
func (p *pki) writeServiceAccountKey() error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	if err := p.writeKey(saKeyFile, key); err != nil {
		return err
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return err
	}
	return p.write(saPubFile, "PUBLIC KEY", pub, 0o644)
}

func (p *pki) writeKey(name string, key crypto.Signer) error {
	data, err := certs.KeyPEM(key)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", name, err)
	}
	return os.WriteFile(p.path(name), data, 0o600)
}

func (p *pki) write(name, blockType string, der []byte, mode os.FileMode) error {
	return os.WriteFile(p.path(name), pem.EncodeToMemory(&pem.Block{Type: blockType, Bytes: der}), mode)
}

func (p *pki) path(name string) string { return filepath.Join(p.dir, name) }
