package fakeaws

import (
	"fmt"

	"github.com/restartsim/restartsim/fakeaws/internal/eks"
	"github.com/restartsim/restartsim/fakeaws/internal/iam"
)

// EKSCluster is the EKS cluster DescribeCluster describes. Zero fields default: version 1.34, platform
// eks.1, service CIDR 172.20.0.0/16, ipFamily ipv4, a role arn:aws:iam::<account>:role/eks-cluster-role,
// created when configured. CertificateAuthority is the base64 of the PEM bundle, as EKS gives it.
type EKSCluster = eks.Cluster

// IAMRole is an IAM role as GetRole describes it.
type IAMRole = iam.Role

// InstanceProfile is an IAM instance profile with its role and tags.
type InstanceProfile = iam.InstanceProfile

// RoleSeed names a role to create: its name, its path ("/" when empty) and trust policy (optional).
type RoleSeed struct {
	Name             string `json:"name"`
	Path             string `json:"path,omitempty"`
	AssumeRolePolicy string `json:"assumeRolePolicyDocument,omitempty"`
}

// configureAccount applies the account-wide options: the EKS cluster and the IAM roles.
func (s *Server) configureAccount(opts Options) error {
	if opts.EKSCluster != nil {
		if _, err := s.eks.Configure(opts.EKSCluster, s.clock.Now()); err != nil {
			return fmt.Errorf("fakeaws: EKSCluster: %w", err)
		}
	}
	for _, name := range opts.IAMRoles {
		if _, err := s.iam.SeedRole(name, "", "", s.clock.Now()); err != nil {
			return fmt.Errorf("fakeaws: IAMRoles: %w", err)
		}
	}
	return nil
}

// SetEKSCluster sets the cluster EKS DescribeCluster answers for and returns it with its defaults filled.
func (s *Server) SetEKSCluster(c EKSCluster) (EKSCluster, error) {
	out, err := s.eks.Configure(&c, s.clock.Now())
	if err != nil {
		return EKSCluster{}, err
	}
	return *out, nil
}

// EKSClusterConfig returns the configured cluster, or nil.
func (s *Server) EKSClusterConfig() *EKSCluster { return s.eks.Cluster() }

// SeedRole creates an IAM role (EntityAlreadyExists for a name taken).
func (s *Server) SeedRole(r RoleSeed) (IAMRole, error) {
	return s.iam.SeedRole(r.Name, r.Path, r.AssumeRolePolicy, s.clock.Now())
}

// IAMRoles lists the IAM roles by name.
func (s *Server) IAMRoles() []IAMRole { return s.iam.Roles() }

// InstanceProfiles lists the IAM instance profiles by name.
func (s *Server) InstanceProfiles() []InstanceProfile { return s.iam.InstanceProfiles() }

// SSMParameterNames lists the Parameter Store parameters served (the EKS AMI parameters).
func (s *Server) SSMParameterNames() []string { return s.ssm.Names() }
