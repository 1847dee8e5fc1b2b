package lbmodel

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

// Checkpoint is the SHA-256 (base64url, no padding) of a canonical JSON of the stack AND of every input the
// builder read. A controller stores it on the object and, after a restart, skips the objects whose checkpoint
// still matches.
//
// Why the inputs and not only the model: the model does not show everything it was built from. The OIDC client
// secret is never marshalled (neither in LBC's model nor here), so a rotated Secret leaves the model's JSON
// unchanged; a model-only hash would skip it forever, including a rotation made while the controller was down,
// which no event will replay. Secrets enter the hash as a content digest (SHA-256 of their sorted key=value
// pairs), never as their material, so the stored checkpoint reveals nothing about them.
//
// Only the parts of an object the builders read are hashed: an Ingress's spec and its alb.ingress.kubernetes.io/
// and class annotations, a Service's type, class, ports and service.beta.kubernetes.io/ annotations. So the
// controller writing its own annotations or status does not change the checkpoint it just saved, as long as
// the annotation it stores the checkpoint in has neither prefix.
func Checkpoint(stack Stack, in Inputs) (string, error) {
	return checkpoint(stack, in, true)
}

// CheckpointIgnoringSecrets is Checkpoint without the Secrets' digest: a deliberately wrong checkpoint (a
// mutant) that misses a rotated OIDC client secret. It exists so that a harness can prove its invariants catch
// a Secret-blind checkpoint; never use it to decide a skip.
func CheckpointIgnoringSecrets(stack Stack, in Inputs) (string, error) {
	return checkpoint(stack, in, false)
}

type canonicalIngress struct {
	Namespace   string                   `json:"namespace"`
	Name        string                   `json:"name"`
	Annotations map[string]string        `json:"annotations"`
	Spec        networkingv1.IngressSpec `json:"spec"`
}

type canonicalService struct {
	Namespace         string               `json:"namespace"`
	Name              string               `json:"name"`
	Annotations       map[string]string    `json:"annotations"`
	Type              corev1.ServiceType   `json:"type"`
	LoadBalancerClass *string              `json:"loadBalancerClass,omitempty"`
	Ports             []corev1.ServicePort `json:"ports"`
}

type canonicalSecret struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Digest    string `json:"digest"`
}

type canonicalDocument struct {
	Stack         Stack              `json:"stack"`
	Ingresses     []canonicalIngress `json:"ingresses"`
	Services      []canonicalService `json:"services"`
	Secrets       []canonicalSecret  `json:"secrets,omitempty"`
	ClassDefaults *ClassDefaults     `json:"classDefaults,omitempty"`
}

func checkpoint(stack Stack, in Inputs, withSecrets bool) (string, error) {
	raw, err := canonicalBytes(stack, in, withSecrets)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(raw)
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}

// canonicalBytes is the hashed document: encoding/json sorts map keys, and the inputs are sorted by
// namespace/name here, so equal inputs in any order give the same bytes.
func canonicalBytes(stack Stack, in Inputs, withSecrets bool) ([]byte, error) {
	doc := canonicalDocument{Stack: stack, ClassDefaults: in.ClassDefaults}
	for _, ing := range in.Ingresses {
		doc.Ingresses = append(doc.Ingresses, canonicalIngress{
			Namespace: ing.Namespace, Name: ing.Name, Spec: ing.Spec,
			Annotations: filterAnnotations(ing.Annotations, IngressAnnotationPrefix, IngressClassAnnotation),
		})
	}
	for _, svc := range in.Services {
		doc.Services = append(doc.Services, canonicalService{
			Namespace: svc.Namespace, Name: svc.Name, Type: svc.Spec.Type, LoadBalancerClass: svc.Spec.LoadBalancerClass,
			Ports: svc.Spec.Ports, Annotations: filterAnnotations(svc.Annotations, ServiceAnnotationPrefix),
		})
	}
	if withSecrets {
		for _, sec := range in.Secrets {
			doc.Secrets = append(doc.Secrets, canonicalSecret{Namespace: sec.Namespace, Name: sec.Name, Digest: SecretDigest(sec)})
		}
	}
	sort.Slice(doc.Ingresses, func(i, j int) bool {
		return key(doc.Ingresses[i].Namespace, doc.Ingresses[i].Name) < key(doc.Ingresses[j].Namespace, doc.Ingresses[j].Name)
	})
	sort.Slice(doc.Services, func(i, j int) bool {
		return key(doc.Services[i].Namespace, doc.Services[i].Name) < key(doc.Services[j].Namespace, doc.Services[j].Name)
	})
	sort.Slice(doc.Secrets, func(i, j int) bool {
		return key(doc.Secrets[i].Namespace, doc.Secrets[i].Name) < key(doc.Secrets[j].Namespace, doc.Secrets[j].Name)
	})
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("marshal checkpoint document: %w", err)
	}
	return raw, nil
}

func key(ns, name string) string { return ns + "/" + name }

// SecretDigest is the hex SHA-256 of a Secret's type and sorted key=value pairs (values hex-encoded, so no
// value can forge a separator): it changes with any content change and reveals none of it.
func SecretDigest(sec *corev1.Secret) string {
	keys := make([]string, 0, len(sec.Data))
	for k := range sec.Data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	h.Write([]byte("type=" + string(sec.Type) + "\n"))
	for _, k := range keys {
		h.Write([]byte(k + "=" + hex.EncodeToString(sec.Data[k]) + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// filterAnnotations keeps the annotations with one of the prefixes (or equal to one).
func filterAnnotations(all map[string]string, prefixes ...string) map[string]string {
	out := map[string]string{}
	for k, v := range all {
		for _, p := range prefixes {
			if strings.HasPrefix(k, p) {
				out[k] = v
				break
			}
		}
	}
	return out
}
