package env

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Access is one permission a run needs: verb on group/resource (resource may be "name/subresource"),
// in Namespace ("" = every namespace, or a cluster-scoped resource).
type Access struct {
	Verb, Group, Resource, Namespace string
}

func (a Access) String() string {
	r := a.Resource
	if a.Group != "" {
		r += "." + a.Group
	}
	if a.Namespace != "" {
		return fmt.Sprintf("%s %s in namespace %s", a.Verb, r, a.Namespace)
	}
	return a.Verb + " " + r
}

// probeTimeout bounds each preflight request: an unreachable cluster is reported in seconds, not
// after client-go's retries.
const probeTimeout = 15 * time.Second

// Preflight is what a run on a kubeconfig cluster checks before it creates anything: that the
// server answers with these credentials, that the identity holds every permission in Needs, and
// that the CRDs the run needs are served (installing the missing ones when Install is set). Each
// failure is an ErrEnvironment that says what to do.
type Preflight struct {
	// CRDDir and CRDPaths are as in Options: the TargetGroupBinding CRD and the scenario's others.
	CRDDir   string
	CRDPaths []string
	// Install creates the CRDs that are not served (existing ones are left as they are).
	Install bool
	// Needs are the permissions to check with SelfSubjectAccessReviews.
	Needs []Access
}

// Check runs the preflight against the environment's cluster.
func (p Preflight) Check(ctx context.Context, e *Env) error {
	cfg := *e.Config
	cfg.Timeout = probeTimeout
	cs, err := kubernetes.NewForConfig(&cfg)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrEnvironment, err)
	}
	if err := reachable(cs.Discovery(), cfg.Host); err != nil {
		return err
	}
	needs := p.Needs
	if p.Install {
		needs = append(needs[:len(needs):len(needs)], Access{Verb: "create", Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"})
	}
	if err := checkAccess(ctx, cs, needs); err != nil {
		return err
	}
	return p.crds(e, cs.Discovery())
}

// reachable turns the first request's failure into one line naming the likely cause.
func reachable(d discovery.DiscoveryInterface, host string) error {
	_, err := d.ServerVersion()
	var netErr net.Error
	switch {
	case err == nil:
		return nil
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("%w: cluster %s refused the kubeconfig's credentials (401 Unauthorized): check its user, token or client certificate", ErrEnvironment, host)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("%w: cluster %s: the identity may not read the server version: %v", ErrEnvironment, host, err)
	case errors.As(err, &netErr):
		return fmt.Errorf("%w: cluster %s is unreachable: %v", ErrEnvironment, host, rootCause(err))
	default:
		return fmt.Errorf("%w: cluster %s: %v", ErrEnvironment, host, rootCause(err))
	}
}

// rootCause drops client-go's "Get \"https://...\": " wrapping, which repeats the host.
func rootCause(err error) error {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err
		}
		err = u
	}
}

func (p Preflight) crds(e *Env, d discovery.DiscoveryInterface) error {
	crds, err := loadCRDs(p.CRDDir, p.CRDPaths)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrEnvironment, err)
	}
	var missing []*apiextensionsv1.CustomResourceDefinition
	for _, crd := range crds {
		ok, err := served(d, crd)
		if err != nil {
			return fmt.Errorf("%w: checking CRD %s: %v", ErrEnvironment, crd.Name, err)
		}
		if !ok {
			missing = append(missing, crd)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if !p.Install {
		sources := []string{"`restartsim crds | kubectl apply -f -`"}
		if p.CRDDir != "" {
			sources[0] = "`kubectl apply -f " + p.CRDDir + "`"
		}
		for _, c := range p.CRDPaths {
			sources = append(sources, "`kubectl apply -f "+c+"`")
		}
		return fmt.Errorf("%w: the cluster does not serve %s; install with %s (or pass --install-crds)",
			ErrEnvironment, crdNames(missing), strings.Join(sources, " and "))
	}
	if _, err := envtest.InstallCRDs(e.Config, envtest.CRDInstallOptions{CRDs: missing, MaxTime: time.Minute}); err != nil {
		return fmt.Errorf("%w: installing %s: %v", ErrEnvironment, crdNames(missing), err)
	}
	return nil
}

// served reports whether every served version of crd is served by the cluster.
func served(d discovery.DiscoveryInterface, crd *apiextensionsv1.CustomResourceDefinition) (bool, error) {
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		list, err := d.ServerResourcesForGroupVersion(crd.Spec.Group + "/" + v.Name)
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if !slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == crd.Spec.Names.Plural }) {
			return false, nil
		}
	}
	return true, nil
}

func crdNames(crds []*apiextensionsv1.CustomResourceDefinition) string {
	names := make([]string, len(crds))
	for i, c := range crds {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// checkAccess asks the API server, per permission, whether the identity holds it.
func checkAccess(ctx context.Context, cs kubernetes.Interface, needs []Access) error {
	var missing []string
	for _, a := range needs {
		resource, sub, _ := strings.Cut(a.Resource, "/")
		review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: a.Verb, Group: a.Group, Resource: resource,
				Subresource: sub, Namespace: a.Namespace},
		}}
		got, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("%w: asking the cluster whether the identity may %s: %v", ErrEnvironment, a, err)
		}
		if !got.Status.Allowed {
			missing = append(missing, a.String())
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: the kubeconfig's identity lacks permissions the run needs: %s", ErrEnvironment, strings.Join(missing, "; "))
	}
	return nil
}
