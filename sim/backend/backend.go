package backend

import (
	"net/http"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
)

// Backend is what the simulation needs from fakeaws: the in-process *fakeaws.Server, or the admin
// HTTP API of a standalone one (--aws-endpoint).
type Backend interface {
	URL() string
	// Handler serves AWS requests in-process (nil for a remote endpoint).
	Handler() http.Handler
	Now() (time.Time, error)
	CallsSince(n int) ([]fakeaws.Call, error)
	SetProfile(name string) error
	SetLimit(operation string, rate float64, burst int) error
	ClearLimit(operation string) error
	SetLatency(operation string, base, jitter time.Duration) error
	SetErrorRate(operation string, rate float64, code string) error
	AddOutage(start time.Time, d time.Duration, services ...string) error
	ClearOutages() error
	SetHealthTiming(healthyAfter, deregistrationDelay time.Duration) error
	RemoveTarget(tgARN string, t fakeaws.Target) error
	RevokeIngress(sgID string, rule fakeaws.Rule) error
	Targets(tgARN string) ([]fakeaws.TargetHealth, error)
	SecurityGroup(id string) (fakeaws.SecurityGroup, error)
	SeedInstance(in fakeaws.Instance) error
	SeedENI(e fakeaws.ENI) error
	SeedCertificate(c fakeaws.CertificateSeed) error
	// SeedIAMRole creates an IAM role; ConfigureEKSCluster sets what EKS DescribeCluster answers.
	SeedIAMRole(r fakeaws.RoleSeed) error
	ConfigureEKSCluster(c fakeaws.EKSCluster) error
	DefaultVPCID() (string, error)
	// Instances lists every EC2 instance through the admin side (never throttled, never in the call log).
	Instances() ([]fakeaws.Instance, error)
	Close() error
}

// Local adapts an in-process *fakeaws.Server.
type Local struct{ *fakeaws.Server }

var (
	_ Backend = Local{}
	_ Backend = (*Remote)(nil)
)

func (l Local) Handler() http.Handler { return l.Server }

// InProcess is the in-process server itself, whose state the harness reads without API calls.
func (l Local) InProcess() *fakeaws.Server { return l.Server }
func (l Local) Now() (time.Time, error)    { return l.Server.Now(), nil }
func (l Local) CallsSince(n int) ([]fakeaws.Call, error) {
	return l.Recorder().Since(n), nil
}
func (l Local) SetLimit(op string, rate float64, burst int) error {
	l.Server.SetLimit(op, rate, burst)
	return nil
}
func (l Local) ClearLimit(op string) error { l.Server.ClearLimit(op); return nil }
func (l Local) SetLatency(op string, b, j time.Duration) error {
	l.Server.SetLatency(op, b, j)
	return nil
}
func (l Local) SetErrorRate(op string, r float64, code string) error {
	l.Server.SetErrorRate(op, r, code)
	return nil
}
func (l Local) AddOutage(start time.Time, d time.Duration, svcs ...string) error {
	l.Server.AddOutage(start, d, svcs...)
	return nil
}
func (l Local) ClearOutages() error { l.Server.ClearOutages(); return nil }
func (l Local) SetHealthTiming(h, d time.Duration) error {
	l.Server.SetHealthTiming(h, d)
	return nil
}
func (l Local) SeedInstance(in fakeaws.Instance) error {
	_, err := l.Server.SeedInstance(in)
	return err
}
func (l Local) SeedENI(e fakeaws.ENI) error { _, err := l.Server.SeedENI(e); return err }
func (l Local) SeedCertificate(c fakeaws.CertificateSeed) error {
	_, err := l.Server.SeedCertificate(c)
	return err
}
func (l Local) SeedIAMRole(r fakeaws.RoleSeed) error { _, err := l.Server.SeedRole(r); return err }
func (l Local) ConfigureEKSCluster(c fakeaws.EKSCluster) error {
	_, err := l.Server.SetEKSCluster(c)
	return err
}
func (l Local) DefaultVPCID() (string, error) { return l.Server.DefaultVPCID(), nil }
func (l Local) Instances() ([]fakeaws.Instance, error) {
	return l.Server.Instances(), nil
}
