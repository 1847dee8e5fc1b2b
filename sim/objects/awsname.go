package objects

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// MaxAWSNameLength is ELBv2's limit on target group and load balancer names.
const MaxAWSNameLength = 32

// AWSName is the template function awsName: a name for the object at index of group in run runID that AWS
// accepts for a target group or load balancer (at most 32 letters, digits and hyphens, no hyphen at either end,
// not starting with "internal-"). It is prefix, a hash of the run and group, and the index in base 36, so
// names are distinct within a run and differ between runs; a long prefix is cut to fit.
func AWSName(prefix, runID, group string, index int) (string, error) {
	if index < 0 {
		return "", fmt.Errorf("awsName: negative index %d", index)
	}
	for _, r := range prefix {
		if !(r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return "", fmt.Errorf("awsName: prefix %q has %q; AWS names hold only letters, digits and hyphens", prefix, r)
		}
	}
	if strings.HasPrefix(prefix, "-") {
		return "", fmt.Errorf("awsName: prefix %q starts with a hyphen, which AWS names may not", prefix)
	}
	sum := sha256.Sum256([]byte(runID + "\x00" + group))
	suffix := hex.EncodeToString(sum[:4]) + "-" + strconv.FormatInt(int64(index), 36)
	if len(suffix) > MaxAWSNameLength {
		return "", fmt.Errorf("awsName: index %d is too large", index)
	}
	prefix = strings.TrimRight(prefix, "-")
	if room := MaxAWSNameLength - len(suffix) - 1; len(prefix) > room {
		prefix = strings.TrimRight(prefix[:room], "-")
	}
	name := suffix
	if prefix != "" {
		name = prefix + "-" + suffix
	}
	if strings.HasPrefix(strings.ToLower(name), "internal-") {
		return "", fmt.Errorf("awsName: prefix %q makes names starting with \"internal-\", which AWS reserves", prefix)
	}
	return name, nil
}
