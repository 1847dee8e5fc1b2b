// Package v1beta1 holds the TargetGroupBinding API (group elbv2.k8s.aws), the same shape as the
// AWS Load Balancer Controller's, so that manifests and controllers written for one work with the other.
//
// +kubebuilder:object:generate=true
// +groupName=elbv2.k8s.aws
package v1beta1
