package fakeaws

import (
	"sort"
	"time"
)

// S3Bucket is an S3 bucket as the harness reads it.
type S3Bucket struct {
	Name         string    `json:"name"`
	CreationDate time.Time `json:"creationDate"`
}

// S3Buckets returns every S3 bucket, sorted by name.
func (s *Server) S3Buckets() ([]S3Bucket, error) {
	infos, err := s.s3store.ListBuckets()
	if err != nil {
		return nil, err
	}
	out := make([]S3Bucket, len(infos))
	for i, b := range infos {
		out[i] = S3Bucket{Name: b.Name, CreationDate: b.CreationDate.Time.UTC()}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
