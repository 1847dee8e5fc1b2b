package sim

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/env"
	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/scenario"
)

// seedAccount creates what the scenario's account holds besides the fleet: its IAM roles and its
// EKS cluster record. Neither is part of a fleet snapshot, so every run seeds them.
func seedAccount(cloud backend.Backend, a *scenario.AWS, e *env.Env, clusterName string) error {
	for _, name := range a.IAMRoles {
		if err := cloud.SeedIAMRole(fakeaws.RoleSeed{Name: name}); err != nil {
			return runerr.BadInput(fmt.Errorf("aws.iamRoles: %s: %w", name, err))
		}
	}
	if !a.EKSCluster {
		return nil
	}
	c := fakeaws.EKSCluster{Name: clusterName, Endpoint: e.ControllerConfig.Host,
		CertificateAuthority: base64.StdEncoding.EncodeToString(e.ControllerConfig.CAData),
		Version:              eksVersion(e.KubernetesVersion)}
	if err := cloud.ConfigureEKSCluster(c); err != nil {
		return fmt.Errorf("aws.eksCluster: %w", err)
	}
	return nil
}

// eksVersion is the major.minor EKS reports of a server's git version (v1.37.2 → 1.37); "" (EKS's
// default) when the server's version is unknown.
func eksVersion(git string) string {
	parts := strings.SplitN(strings.TrimPrefix(git, "v"), ".", 3)
	if len(parts) < 2 {
		return ""
	}
	return parts[0] + "." + parts[1]
}
