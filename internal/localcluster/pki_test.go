package localcluster

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"testing"
)

// The serving certificate verifies for loopback and the in-cluster names against the CA, a client
// certificate carries the user and groups kube-apiserver maps it to, and private keys are 0600.
func TestPKI(t *testing.T) {
	dir := t.TempDir()
	p, err := newPKI(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.servingCert(firstServiceIP); err != nil {
		t.Fatal(err)
	}
	certFile, keyFile, err := p.clientCert("admin", "restartsim-admin", "system:masters")
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	caPEM, err := os.ReadFile(p.path(caCertFile))
	if err != nil || !roots.AppendCertsFromPEM(caPEM) {
		t.Fatalf("reading the CA: %v", err)
	}
	serving, err := tls.LoadX509KeyPair(p.path(servingCertFile), p.path(servingKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(serving.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"127.0.0.1", "10.96.0.1", "localhost", "kubernetes.default.svc"} {
		opts := x509.VerifyOptions{Roots: roots, DNSName: name, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
		if net.ParseIP(name) != nil {
			opts.DNSName = ""
			if err := leaf.VerifyHostname(name); err != nil {
				t.Errorf("serving certificate for %s: %v", name, err)
			}
		}
		if _, err := leaf.Verify(opts); err != nil {
			t.Errorf("serving certificate for %s: %v", name, err)
		}
	}
	client, err := tls.LoadX509KeyPair(p.path(certFile), p.path(keyFile))
	if err != nil {
		t.Fatal(err)
	}
	cl, err := x509.ParseCertificate(client.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if cl.Subject.CommonName != "restartsim-admin" || len(cl.Subject.Organization) != 1 || cl.Subject.Organization[0] != "system:masters" {
		t.Errorf("client subject %v, want CN restartsim-admin, O system:masters", cl.Subject)
	}
	if _, err := cl.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("client certificate: %v", err)
	}
	for _, key := range []string{caKeyFile, servingKeyFile, saKeyFile, keyFile} {
		st, err := os.Stat(p.path(key))
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", key, st.Mode().Perm())
		}
	}
}

// A component is alive only while its pid runs its binary: a recycled pid or a dead one is not.
func TestComponentAlive(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	self := Component{PID: os.Getpid(), Binary: exe}
	if !self.alive() {
		t.Errorf("this process (%s) is not alive", exe)
	}
	if other := (Component{PID: os.Getpid(), Binary: "/usr/bin/etcd"}); other.alive() {
		t.Error("a pid running another binary counts as alive")
	}
	if gone := (Component{PID: 0, Binary: exe}); gone.alive() {
		t.Error("pid 0 counts as alive")
	}
}
