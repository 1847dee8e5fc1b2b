package checkpoint

import (
	"strconv"
	"strings"
	"time"
)

const (
	// AnnotationCheckpoint holds the checkpoint value in both forms.
	AnnotationCheckpoint = "elbv2.k8s.aws/checkpoint"
	// AnnotationTimestamp holds the Unix seconds of the last save in the upstream form.
	AnnotationTimestamp = "elbv2.k8s.aws/checkpoint-timestamp"
)

// Codec reads and writes a checkpoint in object annotations.
type Codec interface {
	// Matches reports whether the annotations hold exactly cp.
	Matches(annotations map[string]string, cp Checkpoint) bool
	// Save returns the merge-patch annotation values that store cp at now (nil deletes a key).
	Save(cp Checkpoint, now time.Time) map[string]*string
	// Reset returns the merge-patch annotation values that clear the checkpoint at now.
	Reset(now time.Time) map[string]*string
	// Timestamp returns when the stored checkpoint was written, if known.
	Timestamp(annotations map[string]string) (time.Time, bool)
}

// IsSet reports whether the annotations hold a non-reset checkpoint.
func IsSet(annotations map[string]string) bool {
	return strings.Contains(annotations[AnnotationCheckpoint], "/")
}

// Upstream is the two-annotation form of the AWS Load Balancer Controller.
type Upstream struct{}

var _ Codec = Upstream{}

func (Upstream) Matches(a map[string]string, cp Checkpoint) bool {
	return a[AnnotationCheckpoint] == cp.String()
}

func (Upstream) Save(cp Checkpoint, now time.Time) map[string]*string {
	return map[string]*string{AnnotationCheckpoint: ptr(cp.String()), AnnotationTimestamp: ptr(unix(now))}
}

func (Upstream) Reset(now time.Time) map[string]*string {
	return map[string]*string{AnnotationCheckpoint: ptr(""), AnnotationTimestamp: ptr(unix(now))}
}

func (Upstream) Timestamp(a map[string]string) (time.Time, bool) {
	return parseUnix(a[AnnotationTimestamp])
}

// Compact is the one-annotation form <hash>/<unixSeconds>; it reads the upstream form too.
type Compact struct{}

var _ Codec = Compact{}

func (Compact) Matches(a map[string]string, cp Checkpoint) bool {
	v := a[AnnotationCheckpoint]
	i := strings.LastIndexByte(v, '/')
	if i < 0 {
		return false
	}
	if _, ok := parseUnix(v[i+1:]); ok {
		return v[:i] == cp.Combined()
	}
	return v == cp.String() // upstream form, written by an older controller
}

func (Compact) Save(cp Checkpoint, now time.Time) map[string]*string {
	return map[string]*string{AnnotationCheckpoint: ptr(cp.Combined() + "/" + unix(now)), AnnotationTimestamp: nil}
}

func (Compact) Reset(time.Time) map[string]*string {
	return map[string]*string{AnnotationCheckpoint: ptr(""), AnnotationTimestamp: nil}
}

func (Compact) Timestamp(a map[string]string) (time.Time, bool) {
	v := a[AnnotationCheckpoint]
	if i := strings.LastIndexByte(v, '/'); i >= 0 {
		if t, ok := parseUnix(v[i+1:]); ok {
			return t, true
		}
	}
	return parseUnix(a[AnnotationTimestamp])
}

func ptr(s string) *string { return &s }

func unix(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }

func parseUnix(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(n, 0), true
}
