// Package providerid reads and writes the provider ID the AWS cloud provider gives an EC2 instance's
// Node (aws:///<zone>/<instance-id>): the controller reads it to register instance targets, the
// harness writes it on the Nodes it registers and reads it to match Nodes with instances.
package providerid

import "strings"

const scheme = "aws://"

// Format is the provider ID of instance id in zone.
func Format(zone, id string) string { return scheme + "/" + zone + "/" + id }

// InstanceID is the instance ID at the end of an aws:///<zone>/<id> provider ID; "" when the provider
// ID is not an EC2 instance's.
func InstanceID(providerID string) string {
	if !strings.HasPrefix(providerID, scheme) {
		return ""
	}
	id := providerID[strings.LastIndexByte(providerID, '/')+1:]
	if !strings.HasPrefix(id, "i-") {
		return ""
	}
	return id
}
