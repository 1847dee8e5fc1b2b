package checkpoint

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Checkpoint is the state a full reconcile made true in AWS.
type Checkpoint struct {
	// EndpointsHash hashes the sorted endpoint identifiers.
	EndpointsHash string
	// SpecHash hashes the JSON of the TargetGroupBinding spec.
	SpecHash string
}

// String is the upstream value: <endpointsHash>/<specHash>.
func (c Checkpoint) String() string { return c.EndpointsHash + "/" + c.SpecHash }

// Combined is the single hash the compact form stores: the SHA-256 of String().
func (c Checkpoint) Combined() string { return hashString(c.String()) }

// IPEndpointID is the hash identifier of an IP target: podIP:port:podCreationUnixMillis.
func IPEndpointID(ip string, port int32, podCreated time.Time) string {
	return fmt.Sprintf("%s:%d:%d", ip, port, podCreated.UnixMilli())
}

// InstanceEndpointID is the hash identifier of an instance target: instanceID:nodePort:nodeCreationUnixMillis.
func InstanceEndpointID(instanceID string, nodePort int32, nodeCreated time.Time) string {
	return fmt.Sprintf("%s:%d:%d", instanceID, nodePort, nodeCreated.UnixMilli())
}

// HashEndpoints hashes endpoint identifiers independently of their order.
func HashEndpoints(ids []string) string {
	sorted := append([]string(nil), ids...)
	sort.Strings(sorted)
	return hashString(strings.Join(sorted, ","))
}

// HashSpec hashes the JSON encoding of a spec (any JSON-marshalable value).
func HashSpec(spec any) (string, error) {
	b, err := json.Marshal(spec)
	if err != nil {
		return "", fmt.Errorf("marshalling spec for checkpoint: %w", err)
	}
	return hashBytes(b), nil
}

// Compute builds the checkpoint of endpoint identifiers and a spec.
func Compute(ids []string, spec any) (Checkpoint, error) {
	specHash, err := HashSpec(spec)
	if err != nil {
		return Checkpoint{}, err
	}
	return Checkpoint{EndpointsHash: HashEndpoints(ids), SpecHash: specHash}, nil
}

func hashString(s string) string { return hashBytes([]byte(s)) }

func hashBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
