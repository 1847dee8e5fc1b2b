// Package eks implements EKS's DescribeCluster (REST-JSON, GET /clusters/{name}) for the one cluster the
// harness configures: a node provisioner reads the cluster's version, endpoint, certificate and service CIDR
// from it.
package eks

import (
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

// PathPrefix is where the cluster operations live.
const PathPrefix = "/clusters"

// Cluster is what the harness configures of the cluster; zero fields take the defaults Configure documents.
type Cluster struct {
	Name                 string    `json:"name"`
	Endpoint             string    `json:"endpoint"`
	CertificateAuthority string    `json:"certificateAuthority"` // base64 of the PEM bundle, as EKS gives it
	Version              string    `json:"version"`
	PlatformVersion      string    `json:"platformVersion"`
	ServiceIPv4CIDR      string    `json:"serviceIpv4Cidr"`
	IPFamily             string    `json:"ipFamily"`
	VPCID                string    `json:"vpcId"`
	SubnetIDs            []string  `json:"subnetIds"`
	RoleARN              string    `json:"roleArn"`
	CreatedAt            time.Time `json:"createdAt"`
}

// Service answers for the configured cluster, if any.
type Service struct {
	accountID, region string

	mu      sync.Mutex
	cluster *Cluster
}

// New returns the EKS API of an account and region with no cluster.
func New(accountID, region string) *Service { return &Service{accountID: accountID, region: region} }

// Configure sets the cluster DescribeCluster answers for; nil removes it. Defaults: version 1.34, platform
// eks.1, service CIDR 172.20.0.0/16 (what EKS picks when none is given and the VPC is in 10.0.0.0/8, as fakeaws's is),
// ipFamily ipv4, the role arn:aws:iam::<account>:role/eks-cluster-role, created at now.
func (s *Service) Configure(c *Cluster, now time.Time) (*Cluster, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c == nil {
		s.cluster = nil
		return nil, nil
	}
	cc := *c
	if cc.Name == "" {
		return nil, query.Errorf("InvalidParameterException", "the cluster needs a name")
	}
	def := func(p *string, v string) {
		if *p == "" {
			*p = v
		}
	}
	def(&cc.Version, "1.34")
	def(&cc.PlatformVersion, "eks.1")
	def(&cc.ServiceIPv4CIDR, "172.20.0.0/16")
	def(&cc.IPFamily, "ipv4")
	def(&cc.RoleARN, "arn:aws:iam::"+s.accountID+":role/eks-cluster-role")
	if cc.CreatedAt.IsZero() {
		cc.CreatedAt = now.UTC().Truncate(time.Second)
	}
	cc.SubnetIDs = append([]string{}, c.SubnetIDs...)
	s.cluster = &cc
	out := cc
	return &out, nil
}

// Cluster returns the configured cluster, or nil.
func (s *Service) Cluster() *Cluster {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cluster == nil {
		return nil
	}
	c := *s.cluster
	return &c
}

// Route is a resolved request: the operation and the cluster it names.
type Route struct {
	Operation, Name string
}

// Resolve maps a method and escaped path to an operation. Only GET /clusters/{name} is served.
func Resolve(method, escapedPath string) (Route, *query.Error) {
	rest, ok := strings.CutPrefix(escapedPath, PathPrefix+"/")
	name, err := url.PathUnescape(rest)
	if !ok || err != nil || name == "" || strings.Contains(rest, "/") || method != "GET" {
		return Route{Operation: "unknown"}, query.Errorf("UnknownOperationException", "Unknown operation %s %s", method, escapedPath)
	}
	return Route{Operation: "DescribeCluster", Name: name}, nil
}

// DescribeCluster answers the cluster named name, or ResourceNotFoundException.
func (s *Service) DescribeCluster(name string) (any, error) {
	c := s.Cluster()
	if c == nil || c.Name != name {
		return nil, query.Errorf("ResourceNotFoundException", "No cluster found for name: %s.", name)
	}
	return map[string]any{"cluster": s.describe(c)}, nil
}

func (s *Service) describe(c *Cluster) map[string]any {
	arn := "arn:aws:eks:" + s.region + ":" + s.accountID + ":cluster/" + c.Name
	return map[string]any{
		"name": c.Name, "arn": arn, "createdAt": float64(c.CreatedAt.UnixNano()) / 1e9, "version": c.Version,
		"endpoint": c.Endpoint, "roleArn": c.RoleARN, "status": "ACTIVE", "platformVersion": c.PlatformVersion,
		"certificateAuthority": map[string]string{"data": c.CertificateAuthority},
		"kubernetesNetworkConfig": map[string]any{"serviceIpv4Cidr": c.ServiceIPv4CIDR, "ipFamily": c.IPFamily,
			"elasticLoadBalancing": map[string]bool{"enabled": false}},
		"resourcesVpcConfig": map[string]any{"vpcId": c.VPCID, "subnetIds": c.SubnetIDs, "securityGroupIds": []string{},
			"endpointPublicAccess": true, "endpointPrivateAccess": false, "publicAccessCidrs": []string{"0.0.0.0/0"}},
		"accessConfig": map[string]string{"authenticationMode": "API_AND_CONFIG_MAP"},
		"tags":         map[string]string{},
	}
}
