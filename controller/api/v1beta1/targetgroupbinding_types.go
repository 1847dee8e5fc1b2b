package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TargetType is how a target group addresses its targets.
// +kubebuilder:validation:Enum=instance;ip
type TargetType string

const (
	// TargetTypeInstance registers node instance IDs on the Service's NodePort.
	TargetTypeInstance TargetType = "instance"
	// TargetTypeIP registers pod IPs on the container port.
	TargetTypeIP TargetType = "ip"
)

// IPAddressType is the address family of a target group.
// +kubebuilder:validation:Enum=ipv4;ipv6
type IPAddressType string

const (
	IPAddressTypeIPv4 IPAddressType = "ipv4"
	IPAddressTypeIPv6 IPAddressType = "ipv6"
)

// TargetGroupProtocol is the protocol of a target group.
// +kubebuilder:validation:Enum=HTTP;HTTPS;TCP;TLS;UDP;TCP_UDP;QUIC;TCP_QUIC
type TargetGroupProtocol string

// NetworkingProtocol is the protocol of an ingress rule.
// +kubebuilder:validation:Enum=TCP;UDP
type NetworkingProtocol string

const (
	NetworkingProtocolTCP NetworkingProtocol = "TCP"
	NetworkingProtocolUDP NetworkingProtocol = "UDP"
)

// ServiceReference names the backend Service and its port.
type ServiceReference struct {
	// Name is the name of a Service in the TargetGroupBinding's namespace.
	Name string `json:"name"`

	// Port is the Service port, by number or by name.
	// +kubebuilder:validation:XIntOrString
	Port intstr.IntOrString `json:"port"`
}

// IPBlock is a CIDR that traffic may come from.
type IPBlock struct {
	// CIDR is an IPv4 or IPv6 CIDR, such as 10.0.0.0/16.
	CIDR string `json:"cidr"`
}

// SecurityGroup is a security group that traffic may come from.
type SecurityGroup struct {
	// GroupID is the security group's ID, such as sg-0123456789abcdef0.
	GroupID string `json:"groupID"`
}

// NetworkingPeer is where allowed traffic comes from: exactly one of ipBlock or securityGroup.
// +kubebuilder:validation:XValidation:rule="has(self.ipBlock) != has(self.securityGroup)",message="exactly one of ipBlock and securityGroup must be set"
type NetworkingPeer struct {
	// +optional
	IPBlock *IPBlock `json:"ipBlock,omitempty"`
	// +optional
	SecurityGroup *SecurityGroup `json:"securityGroup,omitempty"`
}

// NetworkingPort is a port that traffic may reach.
type NetworkingPort struct {
	// Protocol defaults to TCP.
	// +optional
	Protocol *NetworkingProtocol `json:"protocol,omitempty"`

	// Port is a number or a named container port; nil means every port.
	// +kubebuilder:validation:XIntOrString
	// +optional
	Port *intstr.IntOrString `json:"port,omitempty"`
}

// NetworkingIngressRule allows traffic from peers to ports of the targets.
type NetworkingIngressRule struct {
	// From lists the peers that traffic may come from.
	From []NetworkingPeer `json:"from"`

	// Ports lists the ports that traffic may reach.
	Ports []NetworkingPort `json:"ports"`
}

// TargetGroupBindingNetworking is the traffic the targets must accept.
type TargetGroupBindingNetworking struct {
	// Ingress lists the rules for incoming traffic.
	// +optional
	Ingress []NetworkingIngressRule `json:"ingress,omitempty"`
}

// TargetGroupBindingSpec binds a Service's endpoints to an ELBv2 target group.
//
// The checkpoint hashes this struct's JSON, so its fields, their JSON names and their order are the
// AWS Load Balancer Controller's: a checkpoint written by one controller then matches in the other.
// +kubebuilder:validation:XValidation:rule="has(self.targetGroupARN) || has(self.targetGroupName)",message="one of targetGroupARN and targetGroupName is required"
// +kubebuilder:validation:XValidation:rule="has(oldSelf.targetType) == has(self.targetType)",message="targetType is immutable"
// +kubebuilder:validation:XValidation:rule="has(oldSelf.ipAddressType) == has(self.ipAddressType)",message="ipAddressType is immutable"
// +kubebuilder:validation:XValidation:rule="has(oldSelf.vpcID) == has(self.vpcID)",message="vpcID is immutable"
// +kubebuilder:validation:XValidation:rule="has(oldSelf.targetGroupARN) == has(self.targetGroupARN)",message="targetGroupARN is immutable"
type TargetGroupBindingSpec struct {
	// TargetGroupARN is the ARN of the target group.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="targetGroupARN is immutable"
	// +optional
	TargetGroupARN string `json:"targetGroupARN,omitempty"`

	// TargetGroupName is the name of the target group, used when the ARN is not given.
	// +optional
	TargetGroupName string `json:"targetGroupName,omitempty"`

	// MultiClusterTargetGroup means other clusters register targets in the same group: the controller
	// deregisters only targets it registered itself.
	// +optional
	MultiClusterTargetGroup bool `json:"multiClusterTargetGroup,omitempty"`

	// TargetType is instance or ip; when unset the controller reads it from the target group.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="targetType is immutable"
	// +optional
	TargetType *TargetType `json:"targetType,omitempty"`

	// TargetGroupProtocol is the target group's protocol; when unset the controller reads it from the
	// target group.
	// +optional
	TargetGroupProtocol *TargetGroupProtocol `json:"targetGroupProtocol,omitempty"`

	// ServiceRef is the backend Service whose endpoints become targets.
	ServiceRef ServiceReference `json:"serviceRef"`

	// Networking is the traffic the targets must accept; the controller manages matching security group rules.
	// +optional
	Networking *TargetGroupBindingNetworking `json:"networking,omitempty"`

	// NodeSelector limits instance targets to matching nodes.
	// +optional
	NodeSelector *metav1.LabelSelector `json:"nodeSelector,omitempty"`

	// IPAddressType is the address family of the target group.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="ipAddressType is immutable"
	// +optional
	IPAddressType *IPAddressType `json:"ipAddressType,omitempty"`

	// VpcID is the VPC of the target group.
	// +kubebuilder:validation:Pattern=^vpc-[0-9a-f]+$
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="vpcID is immutable"
	// +optional
	VpcID string `json:"vpcID,omitempty"`

	// IamRoleArnToAssume is an IAM role to assume for the target group's AWS calls (a target group in
	// another account). The reference controller keeps it for the checkpoint but does not assume it.
	// +optional
	IamRoleArnToAssume string `json:"iamRoleArnToAssume,omitempty"`

	// AssumeRoleExternalId is the external ID given when assuming iamRoleArnToAssume.
	// +optional
	AssumeRoleExternalId string `json:"assumeRoleExternalId,omitempty"`
}

// TargetGroupBindingStatus is the observed state of a TargetGroupBinding.
type TargetGroupBindingStatus struct {
	// ObservedGeneration is the spec generation that the controller last reconciled successfully.
	// +optional
	ObservedGeneration *int64 `json:"observedGeneration,omitempty"`

	// Conditions hold the Ready condition and its reason.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// The selectable fields of TargetGroupBindings (the CRD's selectableFields below): the API server
// filters lists by them, and the controller's cache indexes go by the same names.
const (
	FieldServiceName = "spec.serviceRef.name"
	FieldTargetType  = "spec.targetType"
)

// TargetGroupBinding binds a Service's endpoints to an ELBv2 target group.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=tgb,categories=all
// +kubebuilder:selectablefield:JSONPath=".spec.serviceRef.name"
// +kubebuilder:selectablefield:JSONPath=".spec.targetType"
// +kubebuilder:printcolumn:name="SERVICE-NAME",type="string",JSONPath=".spec.serviceRef.name",description="The Kubernetes Service's name"
// +kubebuilder:printcolumn:name="SERVICE-PORT",type="string",JSONPath=".spec.serviceRef.port",description="The Kubernetes Service's port"
// +kubebuilder:printcolumn:name="TARGET-TYPE",type="string",JSONPath=".spec.targetType",description="The AWS TargetGroup's TargetType"
// +kubebuilder:printcolumn:name="ARN",type="string",JSONPath=".spec.targetGroupARN",description="The AWS TargetGroup's Amazon Resource Name",priority=1
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
type TargetGroupBinding struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   TargetGroupBindingSpec   `json:"spec,omitempty"`
	Status TargetGroupBindingStatus `json:"status,omitempty"`
}

// TargetGroupBindingList is a list of TargetGroupBindings.
// +kubebuilder:object:root=true
type TargetGroupBindingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []TargetGroupBinding `json:"items"`
}
