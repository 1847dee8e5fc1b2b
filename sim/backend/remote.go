package backend

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
)

// Remote drives a standalone fakeaws (restartsim fakeaws / --aws-endpoint) through its admin HTTP API.
type Remote struct {
	base   string
	creds  Creds
	client *http.Client
	vpc    string // the default VPC, read once at connect (before any bucket exists)
}

// NewRemote connects to the standalone fakeaws at endpoint (its admin API) with credentials c.
func NewRemote(endpoint string, c Creds) (*Remote, error) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("aws endpoint %q: want a URL such as http://127.0.0.1:4566", endpoint)
	}
	r := &Remote{base: u.Scheme + "://" + u.Host, creds: c, client: &http.Client{Timeout: 60 * time.Second}}
	if _, err := r.Now(); err != nil {
		return nil, fmt.Errorf("aws endpoint %s: %w", endpoint, err)
	}
	if r.vpc, err = r.defaultVPC(); err != nil {
		return nil, fmt.Errorf("aws endpoint %s: %w", endpoint, err)
	}
	return r, nil
}

func (r *Remote) do(method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, r.base+"/_restartsim/"+path, body)
	if err != nil {
		return err
	}
	req.Header.Set(fakeaws.AdminAccessKeyHeader, r.creds.AccessKey)
	req.Header.Set(fakeaws.AdminSecretKeyHeader, r.creds.SecretKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := r.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: HTTP %d: %s", method, path, resp.StatusCode, bytes.TrimSpace(data))
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}

func (r *Remote) post(path string, in any) error { return r.do(http.MethodPost, path, in, nil) }

func (r *Remote) URL() string           { return r.base }
func (r *Remote) Handler() http.Handler { return nil }
func (r *Remote) Close() error          { return nil }

type remoteState struct {
	Now            time.Time               `json:"now"`
	SecurityGroups []fakeaws.SecurityGroup `json:"securityGroups"`
	VPCs           []fakeaws.VPC           `json:"vpcs"`
	Instances      []fakeaws.Instance      `json:"instances"`
}

func (r *Remote) state() (remoteState, error) {
	var s remoteState
	err := r.do(http.MethodGet, "state", nil, &s)
	return s, err
}

func (r *Remote) Now() (time.Time, error) {
	s, err := r.state()
	return s.Now, err
}

func (r *Remote) CallsSince(n int) ([]fakeaws.Call, error) {
	var calls []fakeaws.Call
	if err := r.do(http.MethodGet, "calls?since="+strconv.Itoa(n), nil, &calls); err != nil {
		return nil, err
	}
	// A bounded recorder may have dropped calls the measurement needs: a gap must fail the run, not skew it.
	if len(calls) > 0 && calls[0].Seq != uint64(n)+1 {
		return nil, fmt.Errorf("the fakeaws at %s no longer holds calls %d to %d (its recorder dropped them); start it with --max-recorded-calls=-1", r.base, n+1, calls[0].Seq-1)
	}
	return calls, nil
}

func (r *Remote) SetProfile(name string) error {
	return r.post("profile", map[string]any{"name": name})
}
func (r *Remote) SetLimit(op string, rate float64, burst int) error {
	return r.post("limit", map[string]any{"operation": op, "rate": rate, "burst": burst})
}
func (r *Remote) ClearLimit(op string) error {
	return r.post("limit", map[string]any{"operation": op, "clear": true})
}
func (r *Remote) SetLatency(op string, base, jitter time.Duration) error {
	return r.post("latency", map[string]any{"operation": op, "base": base.String(), "jitter": jitter.String()})
}
func (r *Remote) SetErrorRate(op string, rate float64, code string) error {
	return r.post("errors", map[string]any{"operation": op, "rate": rate, "code": code})
}
func (r *Remote) AddOutage(start time.Time, d time.Duration, svcs ...string) error {
	return r.post("outage", map[string]any{"start": start, "duration": d.String(), "services": svcs})
}
func (r *Remote) ClearOutages() error {
	return errors.New("clearing outages is not offered by the admin HTTP API; outages end with their duration")
}
func (r *Remote) SetHealthTiming(h, d time.Duration) error {
	return r.post("health-timing", map[string]any{"healthyAfter": h.String(), "deregistrationDelay": d.String()})
}
func (r *Remote) RemoveTarget(arn string, t fakeaws.Target) error {
	return r.post("drift/remove-target", map[string]any{"targetGroupArn": arn, "target": t})
}
func (r *Remote) RevokeIngress(sg string, rule fakeaws.Rule) error {
	return r.post("drift/revoke-ingress", map[string]any{"groupId": sg, "rule": rule})
}
func (r *Remote) Targets(arn string) ([]fakeaws.TargetHealth, error) {
	var ts []fakeaws.TargetHealth
	err := r.do(http.MethodGet, "targets?arn="+url.QueryEscape(arn), nil, &ts)
	return ts, err
}
func (r *Remote) SecurityGroup(id string) (fakeaws.SecurityGroup, error) {
	s, err := r.state()
	if err != nil {
		return fakeaws.SecurityGroup{}, err
	}
	for _, g := range s.SecurityGroups {
		if g.ID == id {
			return g, nil
		}
	}
	return fakeaws.SecurityGroup{}, fmt.Errorf("security group %s not found", id)
}
func (r *Remote) SeedInstance(in fakeaws.Instance) error { return r.post("seed/instance", in) }
func (r *Remote) SeedENI(e fakeaws.ENI) error            { return r.post("seed/eni", e) }
func (r *Remote) SeedCertificate(c fakeaws.CertificateSeed) error {
	return r.post("seed/certificate", c)
}
func (r *Remote) SeedIAMRole(role fakeaws.RoleSeed) error { return r.post("seed/role", role) }
func (r *Remote) ConfigureEKSCluster(c fakeaws.EKSCluster) error {
	return r.post("eks/cluster", c)
}
func (r *Remote) DefaultVPCID() (string, error) { return r.vpc, nil }

// Instances reads the admin state, not the throttled EC2 API the controller under test shares.
func (r *Remote) Instances() ([]fakeaws.Instance, error) {
	s, err := r.state()
	return s.Instances, err
}

func (r *Remote) defaultVPC() (string, error) {
	s, err := r.state()
	if err != nil {
		return "", err
	}
	for _, v := range s.VPCs {
		if v.IsDefault {
			return v.ID, nil
		}
	}
	return "", errors.New("the AWS endpoint has no default VPC")
}
