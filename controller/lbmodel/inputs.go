package lbmodel

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

// Inputs are the Kubernetes objects a builder read to make a stack, each once. Checkpoint hashes them beside
// the model, because the model alone does not show every input (see Checkpoint).
type Inputs struct {
	Ingresses     []*networkingv1.Ingress
	Services      []*corev1.Service
	Secrets       []*corev1.Secret
	ClassDefaults *ClassDefaults
}

func (in *Inputs) addIngress(ing *networkingv1.Ingress) {
	for _, x := range in.Ingresses {
		if x.Namespace == ing.Namespace && x.Name == ing.Name {
			return
		}
	}
	in.Ingresses = append(in.Ingresses, ing)
}

func (in *Inputs) addService(svc *corev1.Service) {
	for _, x := range in.Services {
		if x.Namespace == svc.Namespace && x.Name == svc.Name {
			return
		}
	}
	in.Services = append(in.Services, svc)
}

func (in *Inputs) addSecret(sec *corev1.Secret) {
	for _, x := range in.Secrets {
		if x.Namespace == sec.Namespace && x.Name == sec.Name {
			return
		}
	}
	in.Secrets = append(in.Secrets, sec)
}
