package objects

import (
	"fmt"
	"reflect"

	"github.com/restartsim/restartsim/fakeaws"
)

// AWSS3Bucket is an S3 bucket, found by name.
const AWSS3Bucket = "s3Bucket"

var s3BucketKind = s3Buckets{kindInfo{kind: AWSS3Bucket, viewType: reflect.TypeFor[s3BucketView](), ways: waysOf("name")}}

type s3Buckets struct{ kindInfo }

// s3BucketView is a bucket's `aws` value.
type s3BucketView struct {
	fakeaws.S3Bucket `json:",inline"`
}

// callName is the bucket's name, whatever s holds.
func (s3Buckets) callName(_ *Snapshot, k resourceKey) string {
	return fakeaws.S3BucketResource(k.value)
}

func (s3Buckets) list(r *stateReads, add addFunc) error {
	buckets, err := r.src.S3Buckets()
	if err != nil {
		return fmt.Errorf("listing S3 buckets: %w", err)
	}
	for _, b := range buckets {
		add(&s3BucketView{S3Bucket: b}, byKey("name", b.Name))
	}
	return nil
}
