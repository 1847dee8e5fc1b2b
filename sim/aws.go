package sim

import (
	"context"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/workload"
)

// awsBackend is what the simulation needs from fakeaws: the in-process *fakeaws.Server, or the admin
// HTTP API of a standalone one (--aws-endpoint).
type awsBackend interface {
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
	DefaultVPCID() (string, error)
	Close() error
}

// local adapts an in-process *fakeaws.Server.
type local struct{ *fakeaws.Server }

var (
	_ awsBackend = local{}
	_ awsBackend = (*remote)(nil)
)

func (l local) Handler() http.Handler   { return l.Server }
func (l local) Now() (time.Time, error) { return l.Server.Now(), nil }
func (l local) CallsSince(n int) ([]fakeaws.Call, error) {
	return l.Recorder().Since(n), nil
}
func (l local) SetLimit(op string, rate float64, burst int) error {
	l.Server.SetLimit(op, rate, burst)
	return nil
}
func (l local) ClearLimit(op string) error { l.Server.ClearLimit(op); return nil }
func (l local) SetLatency(op string, b, j time.Duration) error {
	l.Server.SetLatency(op, b, j)
	return nil
}
func (l local) SetErrorRate(op string, r float64, code string) error {
	l.Server.SetErrorRate(op, r, code)
	return nil
}
func (l local) AddOutage(start time.Time, d time.Duration, svcs ...string) error {
	l.Server.AddOutage(start, d, svcs...)
	return nil
}
func (l local) ClearOutages() error { l.Server.ClearOutages(); return nil }
func (l local) SetHealthTiming(h, d time.Duration) error {
	l.Server.SetHealthTiming(h, d)
	return nil
}
func (l local) SeedInstance(in fakeaws.Instance) error {
	_, err := l.Server.SeedInstance(in)
	return err
}
func (l local) SeedENI(e fakeaws.ENI) error   { _, err := l.Server.SeedENI(e); return err }
func (l local) DefaultVPCID() (string, error) { return l.Server.DefaultVPCID(), nil }

// creds are the static credentials every client of a run uses.
type creds struct{ region, accessKey, secretKey string }

// runCreds are the credentials and region every AWS client of a run uses.
func runCreds(o Options, sc *scenario.Scenario) creds {
	return creds{region: sc.AWS.Region, accessKey: o.AccessKeyID, secretKey: o.SecretAccessKey}
}

// sdkConfig is an aws.Config aimed at endpoint.
func sdkConfig(endpoint string, c creds, maxAttempts int) aws.Config {
	return aws.Config{
		Region:       c.region,
		Credentials:  credentials.NewStaticCredentialsProvider(c.accessKey, c.secretKey, ""),
		BaseEndpoint: aws.String(endpoint),
		Retryer: func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) {
				o.MaxAttempts = maxAttempts
				o.MaxBackoff = 2 * time.Second
				o.RateLimiter = noRateLimit{}
			})
		},
		HTTPClient: &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 256, MaxConnsPerHost: 0}},
	}
}

// noRateLimit disables the retry token bucket, as the controller does.
type noRateLimit struct{}

func (noRateLimit) GetToken(context.Context, uint) (func() error, error) {
	return func() error { return nil }, nil
}
func (noRateLimit) AddTokens(uint) error { return nil }

// provisioner implements workload.Provisioner over aws-sdk-go-v2 (target and security groups, as a
// user would create them) and the fakeaws admin API (instances and ENIs, which only exist by seeding).
type provisioner struct {
	elb     *elbv2.Client
	ec2     *ec2.Client
	backend awsBackend
	vpcOnce sync.Once
	vpc     string
	vpcErr  error
}

func newProvisioner(b awsBackend, c creds) *provisioner {
	cfg := sdkConfig(b.URL(), c, 30)
	return &provisioner{elb: elbv2.NewFromConfig(cfg), ec2: ec2.NewFromConfig(cfg), backend: b}
}

func (p *provisioner) vpcID(id string) (string, error) {
	if id != "" {
		return id, nil
	}
	p.vpcOnce.Do(func() { p.vpc, p.vpcErr = p.backend.DefaultVPCID() })
	return p.vpc, p.vpcErr
}

func (p *provisioner) CreateTargetGroup(ctx context.Context, name string, tt v1beta1.TargetType, port int32, vpcID string) (string, error) {
	vpc, err := p.vpcID(vpcID)
	if err != nil {
		return "", err
	}
	out, err := p.elb.CreateTargetGroup(ctx, &elbv2.CreateTargetGroupInput{
		Name: aws.String(name), Protocol: elbtypes.ProtocolEnumHttp, Port: aws.Int32(port),
		VpcId: aws.String(vpc), TargetType: elbtypes.TargetTypeEnum(tt),
	})
	if err != nil {
		return "", fmt.Errorf("CreateTargetGroup %s: %w", name, err)
	}
	if len(out.TargetGroups) == 0 {
		return "", fmt.Errorf("CreateTargetGroup %s: empty response", name)
	}
	return aws.ToString(out.TargetGroups[0].TargetGroupArn), nil
}

func (p *provisioner) CreateSecurityGroup(ctx context.Context, name, vpcID string) (string, error) {
	vpc, err := p.vpcID(vpcID)
	if err != nil {
		return "", err
	}
	out, err := p.ec2.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{
		GroupName: aws.String(name), Description: aws.String("restartsim " + name), VpcId: aws.String(vpc),
		TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeSecurityGroup,
			Tags: []ec2types.Tag{{Key: aws.String("restartsim.io/run"), Value: aws.String("1")}}}},
	})
	if err != nil {
		return "", fmt.Errorf("CreateSecurityGroup %s: %w", name, err)
	}
	return aws.ToString(out.GroupId), nil
}

func (p *provisioner) SeedInstance(_ context.Context, id, ip string, sgs []string) error {
	return p.backend.SeedInstance(fakeaws.Instance{ID: id, PrivateIP: ip, SecurityGroupIDs: sgs})
}

// TagResources tags through EC2 CreateTags, as a user tags a node group's security groups.
func (p *provisioner) TagResources(ctx context.Context, ids []string, tags map[string]string) error {
	in := &ec2.CreateTagsInput{Resources: ids}
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		in.Tags = append(in.Tags, ec2types.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
	}
	if _, err := p.ec2.CreateTags(ctx, in); err != nil {
		return fmt.Errorf("CreateTags %v: %w", ids, err)
	}
	return nil
}

// SeedNetworkInterface seeds through the admin API: trunk and branch ENIs are the VPC resource
// controller's, not something a user creates.
func (p *provisioner) SeedNetworkInterface(_ context.Context, n workload.NetworkInterface) error {
	e := fakeaws.ENI{ID: n.ID, PrivateIPs: n.PrivateIPs, SecurityGroupIDs: n.SecurityGroupIDs, InterfaceType: n.InterfaceType,
		AvailabilityZone: n.AvailabilityZone, InstanceID: n.InstanceID, DeviceIndex: n.DeviceIndex, MACAddress: n.MACAddress,
		Description: n.Description}
	for _, k := range slices.Sorted(maps.Keys(n.Tags)) {
		e.Tags = append(e.Tags, fakeaws.Tag{Key: k, Value: n.Tags[k]})
	}
	return p.backend.SeedENI(e)
}

// SeedENI seeds a plain, unattached network interface.
func (p *provisioner) SeedENI(ctx context.Context, id string, ips, sgs []string) error {
	return p.SeedNetworkInterface(ctx, workload.NetworkInterface{ID: id, PrivateIPs: ips, SecurityGroupIDs: sgs})
}

// gate is a per-controller-instance AWS endpoint: a loopback listener that forwards to fakeaws until
// it is cut, so a "crashed" in-process instance can no longer reach AWS.
type gate struct {
	srv *http.Server
	url string
}

func newGate(b awsBackend) (*gate, error) {
	h := b.Handler()
	if h == nil {
		u, err := url.Parse(b.URL())
		if err != nil {
			return nil, err
		}
		h = httputil.NewSingleHostReverseProxy(u) // Host is kept, so SigV4 signatures still match
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	g := &gate{srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}, url: "http://" + ln.Addr().String()}
	go g.srv.Serve(ln) //nolint:errcheck // ends with Close
	return g, nil
}

// cut closes the listener and every connection at once.
func (g *gate) cut() { _ = g.srv.Close() }
