// Package ssm implements the Systems Manager Parameter Store reads (AWS JSON 1.1) a node provisioner makes to
// resolve an AMI alias: GetParameter and GetParameters over the public parameters that name the
// EKS-optimised AMIs.
package ssm

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/restartsim/restartsim/fakeaws/internal/ec2"
	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

// TargetPrefix is the X-Amz-Target prefix of the service's operations.
const TargetPrefix = "AmazonSSM."

// maxNames is GetParameters' documented limit on Names.
const maxNames = 10

// Parameter is a Parameter Store parameter as GetParameter answers it.
type Parameter struct {
	Name             string  `json:"Name"`
	Type             string  `json:"Type"`
	Value            string  `json:"Value"`
	Version          int64   `json:"Version"`
	LastModifiedDate float64 `json:"LastModifiedDate"` // epoch seconds, as AWS JSON sends timestamps
	ARN              string  `json:"ARN"`
	DataType         string  `json:"DataType"`
}

// Handler answers one operation: the request's JSON body in, the response's value out.
type Handler func(body []byte) (any, error)

// Service holds the region's public parameters.
type Service struct {
	params map[string]Parameter
	ops    map[string]Handler
}

// K8sMinors are the Kubernetes minor versions (1.x) whose EKS AMI parameters are seeded.
var K8sMinors = [2]int{20, 45}

// New seeds, for every Kubernetes version in K8sMinors and each architecture of ec2.Images, the AL2023
// standard parameters EKS publishes: .../recommended/image_id (the newest image) and one per release,
// named amazon-eks-node-al2023-<arch>-standard-<k8s>-v<date>. fakeaws has one image per architecture and
// release, so every Kubernetes version names the same AMIs; GPU variants and other families are not seeded
// (ParameterNotFound), as there are no such images.
func New(region string) *Service {
	s := &Service{params: map[string]Parameter{}}
	newest := map[string]ec2.Image{}
	for _, im := range ec2.Images {
		if cur, ok := newest[im.Architecture]; !ok || im.Created.After(cur.Created) {
			newest[im.Architecture] = im
		}
	}
	for minor := K8sMinors[0]; minor <= K8sMinors[1]; minor++ {
		k8s := fmt.Sprintf("1.%d", minor)
		for _, im := range ec2.Images {
			release := im.Name[strings.LastIndex(im.Name, "-")+1:]
			name := fmt.Sprintf("amazon-eks-node-al2023-%s-standard-%s-%s", im.Architecture, k8s, release)
			s.add(region, imagePath(k8s, im.Architecture, name), im)
		}
		for arch, im := range newest {
			s.add(region, imagePath(k8s, arch, "recommended"), im)
		}
	}
	s.ops = map[string]Handler{"GetParameter": s.getParameter, "GetParameters": s.getParameters}
	return s
}

func imagePath(k8s, arch, name string) string {
	return fmt.Sprintf("/aws/service/eks/optimized-ami/%s/amazon-linux-2023/%s/standard/%s/image_id", k8s, arch, name)
}

func (s *Service) add(region, name string, im ec2.Image) {
	s.params[name] = Parameter{Name: name, Type: "String", Value: im.ID, Version: 1,
		LastModifiedDate: float64(im.Created.Unix()), ARN: "arn:aws:ssm:" + region + "::parameter" + name, DataType: "aws:ec2:image"}
}

// Lookup returns the handler of an operation (the X-Amz-Target without its prefix).
func (s *Service) Lookup(op string) (Handler, bool) {
	h, ok := s.ops[op]
	return h, ok
}

// Operations lists the supported operations, sorted.
func (s *Service) Operations() []string { return slices.Sorted(maps.Keys(s.ops)) }

// Names lists the seeded parameters, sorted.
func (s *Service) Names() []string { return slices.Sorted(maps.Keys(s.params)) }

// decode reads a JSON request body; a body that is not a JSON object is SerializationException.
func decode(body []byte, v any) error {
	if len(body) == 0 {
		body = []byte("{}")
	}
	if err := json.Unmarshal(body, v); err != nil {
		return query.Errorf("SerializationException", "Could not parse the request body as JSON")
	}
	return nil
}

func (s *Service) getParameter(body []byte) (any, error) {
	var in struct {
		Name           string
		WithDecryption bool
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if in.Name == "" {
		return nil, query.Errorf("ValidationException", "1 validation error detected: Value null at 'name' failed to satisfy constraint: Member must not be null")
	}
	p, ok := s.params[strings.TrimSpace(in.Name)]
	if !ok {
		return nil, query.Errorf("ParameterNotFound", "Parameter %s not found.", in.Name)
	}
	return struct{ Parameter Parameter }{p}, nil
}

func (s *Service) getParameters(body []byte) (any, error) {
	var in struct {
		Names          []string
		WithDecryption bool
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if len(in.Names) == 0 || len(in.Names) > maxNames {
		return nil, query.Errorf("ValidationException", "1 validation error detected: Value at 'names' failed to satisfy constraint: Member must have length less than or equal to %d and greater than or equal to 1", maxNames)
	}
	out := struct {
		Parameters        []Parameter
		InvalidParameters []string
	}{Parameters: []Parameter{}, InvalidParameters: []string{}}
	for _, n := range in.Names {
		if p, ok := s.params[strings.TrimSpace(n)]; ok {
			out.Parameters = append(out.Parameters, p)
		} else {
			out.InvalidParameters = append(out.InvalidParameters, n)
		}
	}
	return out, nil
}
