package lb

import (
	"context"
	"encoding/json"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/lbmodel"
)

// Field indexes on Ingresses, so that an event on a Service, a Secret or an Ingress finds the Ingress
// groups that read it without listing every Ingress.
const (
	// indexIngressGroup: the Ingress's group name (lbmodel.GroupID).
	indexIngressGroup = "lb.ingress.group"
	// indexIngressServices: namespace/name of every Service the Ingress's backends and forward
	// actions name.
	indexIngressServices = "lb.ingress.services"
	// indexIngressSecrets: namespace/name of the OIDC client Secret the Ingress names.
	indexIngressSecrets = "lb.ingress.secrets"
)

func setupIndexes(ctx context.Context, idx client.FieldIndexer) error {
	ing := &networkingv1.Ingress{}
	if err := idx.IndexField(ctx, ing, indexIngressGroup, func(o client.Object) []string {
		return []string{lbmodel.GroupID(o.(*networkingv1.Ingress)).Name}
	}); err != nil {
		return err
	}
	if err := idx.IndexField(ctx, ing, indexIngressServices, func(o client.Object) []string {
		return ingressServiceKeys(o.(*networkingv1.Ingress))
	}); err != nil {
		return err
	}
	return idx.IndexField(ctx, ing, indexIngressSecrets, func(o client.Object) []string {
		return ingressSecretKeys(o.(*networkingv1.Ingress))
	})
}

// ingressServiceNames are the Services an Ingress may read: the default backend, every path's
// backend, and the target groups of the actions.* annotations' forward configs. A malformed
// annotation adds nothing here; the model builder reports it.
func ingressServiceNames(ing *networkingv1.Ingress) []string {
	seen := map[string]bool{}
	var out []string
	add := func(name string) {
		if name != "" && name != lbmodel.UseAnnotation && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	addBackend := func(be *networkingv1.IngressBackend) {
		if be != nil && be.Service != nil && be.Service.Port.Name != lbmodel.UseAnnotation {
			add(be.Service.Name)
		}
	}
	addBackend(ing.Spec.DefaultBackend)
	for _, r := range ing.Spec.Rules {
		if r.HTTP == nil {
			continue
		}
		for i := range r.HTTP.Paths {
			addBackend(&r.HTTP.Paths[i].Backend)
		}
	}
	for k, v := range ing.Annotations {
		if !strings.HasPrefix(k, lbmodel.AnnotationActionPrefix) {
			continue
		}
		var action struct {
			ForwardConfig *struct {
				TargetGroups []struct {
					ServiceName string `json:"serviceName"`
				} `json:"targetGroups"`
			} `json:"forwardConfig"`
		}
		if json.Unmarshal([]byte(v), &action) == nil && action.ForwardConfig != nil {
			for _, tg := range action.ForwardConfig.TargetGroups {
				add(tg.ServiceName)
			}
		}
	}
	return out
}

func ingressServiceKeys(ing *networkingv1.Ingress) []string {
	names := ingressServiceNames(ing)
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = ing.Namespace + "/" + n
	}
	return out
}

// ingressSecretName is the OIDC client Secret the auth-idp-oidc annotation names ("" for none).
func ingressSecretName(ing *networkingv1.Ingress) string {
	raw, ok := ing.Annotations[lbmodel.AnnotationAuthIDPOIDC]
	if !ok {
		return ""
	}
	var cfg struct {
		SecretName string `json:"secretName"`
	}
	if json.Unmarshal([]byte(raw), &cfg) != nil {
		return ""
	}
	return cfg.SecretName
}

func ingressSecretKeys(ing *networkingv1.Ingress) []string {
	if name := ingressSecretName(ing); name != "" {
		return []string{ing.Namespace + "/" + name}
	}
	return nil
}

// ingressInputs reads, from the cache, the Services and Secrets the members name; missing ones are
// left out (the builder then reports which one it needed).
func (r *reconciler) ingressInputs(ctx context.Context, members []networkingv1.Ingress) ([]corev1.Service, []corev1.Secret, error) {
	var svcs []corev1.Service
	var secs []corev1.Secret
	seen := map[string]bool{}
	for i := range members {
		ing := &members[i]
		for _, name := range ingressServiceNames(ing) {
			key := client.ObjectKey{Namespace: ing.Namespace, Name: name}
			if seen["svc:"+key.String()] {
				continue
			}
			seen["svc:"+key.String()] = true
			svc := corev1.Service{}
			if err := r.client.Get(ctx, key, &svc); client.IgnoreNotFound(err) != nil {
				return nil, nil, err
			} else if err == nil {
				svcs = append(svcs, svc)
			}
		}
		if name := ingressSecretName(ing); name != "" && !seen["sec:"+ing.Namespace+"/"+name] {
			seen["sec:"+ing.Namespace+"/"+name] = true
			sec := corev1.Secret{}
			if err := r.client.Get(ctx, client.ObjectKey{Namespace: ing.Namespace, Name: name}, &sec); client.IgnoreNotFound(err) != nil {
				return nil, nil, err
			} else if err == nil {
				secs = append(secs, sec)
			}
		}
	}
	return svcs, secs, nil
}
