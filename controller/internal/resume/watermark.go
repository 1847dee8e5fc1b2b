package resume

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Watermark is the content of the resume ConfigMap: a resource version up to which every event
// of the watched kinds had been reconciled by the instance that wrote it.
type Watermark struct {
	// ResourceVersion: every event up to it had been reconciled.
	ResourceVersion string
	// RecordedAt is when it was written (the controller's clock).
	RecordedAt time.Time
}

const (
	watermarkKeyRV   = "resourceVersion"
	watermarkKeyTime = "recordedAt"
)

// WatermarkName is the ConfigMap holding the resume watermark of a controller with this leader
// election ID.
func WatermarkName(leaderElectionID string) string { return leaderElectionID + "-resume" }

// ReadWatermark reads a controller's resume watermark; ok is false when none was recorded.
func ReadWatermark(ctx context.Context, r client.Reader, namespace, leaderElectionID string) (w Watermark, ok bool, err error) {
	cm := &corev1.ConfigMap{}
	err = r.Get(ctx, types.NamespacedName{Namespace: namespace, Name: WatermarkName(leaderElectionID)}, cm)
	if apierrors.IsNotFound(err) {
		return Watermark{}, false, nil
	}
	if err != nil {
		return Watermark{}, false, err
	}
	w.ResourceVersion = cm.Data[watermarkKeyRV]
	if w.ResourceVersion == "" {
		return Watermark{}, false, nil
	}
	if t := cm.Data[watermarkKeyTime]; t != "" {
		if w.RecordedAt, err = time.Parse(time.RFC3339Nano, t); err != nil {
			return Watermark{}, false, fmt.Errorf("watermark %s/%s: %s: %w", namespace, cm.Name, watermarkKeyTime, err)
		}
	}
	return w, true, nil
}

// WriteWatermark stores w in the ConfigMap ReadWatermark reads, creating it if needed.
func WriteWatermark(ctx context.Context, c client.Writer, namespace, leaderElectionID string, w Watermark) error {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: WatermarkName(leaderElectionID)},
		Data: map[string]string{
			watermarkKeyRV:   w.ResourceVersion,
			watermarkKeyTime: w.RecordedAt.UTC().Format(time.RFC3339Nano),
		},
	}
	err := c.Update(ctx, cm)
	if apierrors.IsNotFound(err) {
		err = c.Create(ctx, cm)
	}
	if err != nil {
		return fmt.Errorf("writing the watermark: %w", err)
	}
	return nil
}

// CurrentResourceVersion is the API server's current resource version: that of a consistent
// list (limit 1) of the namespace's ConfigMaps.
func CurrentResourceVersion(ctx context.Context, r client.Reader, namespace string) (string, error) {
	var list corev1.ConfigMapList
	if err := r.List(ctx, &list, client.InNamespace(namespace), client.Limit(1)); err != nil {
		return "", fmt.Errorf("sampling the resource version: %w", err)
	}
	return list.ResourceVersion, nil
}
