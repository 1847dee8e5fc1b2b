package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// IngressClassParamsSpec holds the group-wide settings of the Ingresses of every IngressClass that
// names these parameters; a set field wins over the Ingresses' annotations. Its fields are a subset
// of the AWS Load Balancer Controller's kind of the same name, with the same names and meaning, so
// one object serves both controllers.
type IngressClassParamsSpec struct {
	// Scheme is the load balancers' scheme.
	// +kubebuilder:validation:Enum=internal;internet-facing
	// +optional
	Scheme *string `json:"scheme,omitempty"`

	// IPAddressType is the load balancers' address type.
	// +kubebuilder:validation:Enum=ipv4;dualstack
	// +optional
	IPAddressType *string `json:"ipAddressType,omitempty"`

	// Tags are added to every AWS resource of the Ingresses' load balancers, over the Ingresses'
	// own tags annotation.
	// +optional
	Tags []Tag `json:"tags,omitempty"`
}

// Tag is an AWS resource tag.
type Tag struct {
	// Key is the tag's key.
	// +kubebuilder:validation:MinLength=1
	Key string `json:"key"`

	// Value is the tag's value.
	Value string `json:"value"`
}

// IngressClassParams are the parameters an IngressClass names in spec.parameters (apiGroup
// elbv2.k8s.aws, kind IngressClassParams).
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
// +kubebuilder:printcolumn:name="SCHEME",type="string",JSONPath=".spec.scheme"
// +kubebuilder:printcolumn:name="IP-ADDRESS-TYPE",type="string",JSONPath=".spec.ipAddressType"
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
type IngressClassParams struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec IngressClassParamsSpec `json:"spec,omitempty"`
}

// IngressClassParamsList is a list of IngressClassParams.
//
// +kubebuilder:object:root=true
type IngressClassParamsList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []IngressClassParams `json:"items"`
}

// IngressClassParamsKind is the kind an IngressClass's spec.parameters names.
const IngressClassParamsKind = "IngressClassParams"
