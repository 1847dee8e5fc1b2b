// Package s3quota bounds what an in-memory gofakes3 backend holds. A Quota counts every object (its bytes,
// key and metadata plus a fixed overhead), every bucket and the parts of unfinished multipart uploads; the
// HTTP front reserves what a write may add before it runs (refusing it when that would pass the bound) and
// the wrapped backend records what each write really stored or removed.
package s3quota

import (
	"io"
	"sync"

	"github.com/johannesboyne/gofakes3"
)

// Fixed charges for what the backend keeps beside an object's or upload's bytes (maps, structs,
// timestamps), so that empty objects and uploads are not free.
const (
	ObjectOverhead = 512
	BucketOverhead = 1024
	// UploadOverhead is charged per multipart upload: its metadata (gofakes3 allows 2,000 bytes), key and
	// bookkeeping.
	UploadOverhead = 4096
	// PartOverhead is charged per part stored for an upload: the size kept to check it at completion.
	PartOverhead = 64
	// MaxMetadataCharge is the most metadata a write may add: gofakes3 refuses more than 2,000 bytes, and
	// Last-Modified is added to every object.
	MaxMetadataCharge = 2048
)

// Quota is the storage bound shared by the front and the wrapped backend.
type Quota struct {
	max int64

	mu      sync.Mutex
	stored  int64 // what the backend holds: objects, buckets, uploads
	pending int64 // reserved by writes that are running
	objects map[string]map[string]int64
	uploads map[string]int64
	parts   map[string]map[int]int64 // upload ID, part number: the part's size
}

// New returns a Quota of max bytes.
func New(max int64) *Quota {
	return &Quota{max: max, objects: map[string]map[string]int64{}, uploads: map[string]int64{}, parts: map[string]map[int]int64{}}
}

// Used is what is stored plus what running writes have reserved.
func (q *Quota) Used() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.stored + q.pending
}

// Max is the bound.
func (q *Quota) Max() int64 { return q.max }

// Reserve holds n bytes for a write about to run; false (and nothing held) when that would pass the bound.
func (q *Quota) Reserve(n int64) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if n > 0 && q.stored+q.pending+n > q.max {
		return false
	}
	q.pending += max(n, 0)
	return true
}

// Unreserve gives back a reservation once its write has finished (what it stored is counted by then).
func (q *Quota) Unreserve(n int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending -= max(n, 0)
}

// Charged is what the object occupies now (0 when there is none).
func (q *Quota) Charged(bucket, key string) int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.objects[bucket][key]
}

// ObjectCharge is what an object of size bytes with meta occupies.
func ObjectCharge(bucket, key string, size int64, meta map[string]string) int64 {
	n := size + int64(len(bucket)+len(key)) + ObjectOverhead
	for k, v := range meta {
		n += int64(len(k) + len(v))
	}
	return n
}

// UploadBytes is what an unfinished multipart upload occupies (0 when it is unknown).
func (q *Quota) UploadBytes(id string) int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.uploads[id]
}

// StartUpload counts a multipart upload just created.
func (q *Quota) StartUpload(id string) { q.addUpload(id, UploadOverhead) }

// AddPart counts a part of n bytes stored for an upload and keeps its size (a part sent again is counted
// again: an over-count that ends with the upload).
func (q *Quota) AddPart(id string, part int, n int64) {
	q.addUpload(id, n+PartOverhead)
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.parts[id] == nil {
		q.parts[id] = map[int]int64{}
	}
	q.parts[id][part] = n
}

// Hold counts n bytes kept beside the backend (a bucket's tags) as stored; false (and nothing counted) when
// that would pass the bound.
func (q *Quota) Hold(n int64) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if n > 0 && q.stored+q.pending+n > q.max {
		return false
	}
	q.stored += n
	return true
}

// Release gives back n bytes Hold counted.
func (q *Quota) Release(n int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.stored -= n
}

// PartSize is the size of a part stored for an upload, false when none is known.
func (q *Quota) PartSize(id string, part int) (int64, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	n, ok := q.parts[id][part]
	return n, ok
}

func (q *Quota) addUpload(id string, n int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.uploads[id] += n
	q.stored += n
}

// EndUpload forgets an upload completed (its object is counted by the backend) or aborted.
func (q *Quota) EndUpload(id string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.stored -= q.uploads[id]
	delete(q.uploads, id)
	delete(q.parts, id)
}

func (q *Quota) setObject(bucket, key string, charge int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	objs := q.objects[bucket]
	if objs == nil {
		return // the bucket went away meanwhile
	}
	q.stored += charge - objs[key]
	objs[key] = charge
}

func (q *Quota) removeObject(bucket, key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.stored -= q.objects[bucket][key]
	delete(q.objects[bucket], key)
}

func (q *Quota) addBucket(name string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, ok := q.objects[name]; !ok {
		q.objects[name] = map[string]int64{}
		q.stored += BucketOverhead
	}
}

func (q *Quota) removeBucket(name string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	objs, ok := q.objects[name]
	if !ok {
		return
	}
	for _, c := range objs {
		q.stored -= c
	}
	q.stored -= BucketOverhead
	delete(q.objects, name)
}

// Wrap returns b with every write recorded in q. The wrapper implements gofakes3.Backend only, so gofakes3
// serves it without versioning (an overwritten or deleted object's data is gone) and with its own
// in-memory multipart uploads, whose parts the front counts.
func (q *Quota) Wrap(b gofakes3.Backend) gofakes3.Backend { return &backend{Backend: b, q: q} }

type backend struct {
	gofakes3.Backend
	q *Quota
}

// record charges the object as the backend now holds it.
func (b *backend) record(bucket, key string) {
	obj, err := b.Backend.HeadObject(bucket, key)
	if err != nil {
		return
	}
	if obj.Contents != nil {
		_ = obj.Contents.Close()
	}
	b.q.setObject(bucket, key, ObjectCharge(bucket, key, obj.Size, obj.Metadata))
}

func (b *backend) CreateBucket(name string) error {
	if err := b.Backend.CreateBucket(name); err != nil {
		return err
	}
	b.q.addBucket(name)
	return nil
}

func (b *backend) DeleteBucket(name string) error {
	if err := b.Backend.DeleteBucket(name); err != nil {
		return err
	}
	b.q.removeBucket(name)
	return nil
}

// ForceDeleteBucket serves gofakes3's x-minio-force-delete, which drops a bucket with its objects.
func (b *backend) ForceDeleteBucket(name string) error {
	f, ok := b.Backend.(interface{ ForceDeleteBucket(string) error })
	if !ok {
		return gofakes3.ErrNotImplemented
	}
	if err := f.ForceDeleteBucket(name); err != nil {
		return err
	}
	b.q.removeBucket(name)
	return nil
}

func (b *backend) PutObject(bucket, key string, meta map[string]string, input io.Reader, size int64, conditions *gofakes3.PutConditions) (gofakes3.PutObjectResult, error) {
	res, err := b.Backend.PutObject(bucket, key, meta, input, size, conditions)
	if err == nil {
		b.record(bucket, key)
	}
	return res, err
}

func (b *backend) CopyObject(srcBucket, srcKey, dstBucket, dstKey string, meta map[string]string) (gofakes3.CopyObjectResult, error) {
	res, err := b.Backend.CopyObject(srcBucket, srcKey, dstBucket, dstKey, meta)
	if err == nil {
		b.record(dstBucket, dstKey)
	}
	return res, err
}

func (b *backend) DeleteObject(bucket, key string) (gofakes3.ObjectDeleteResult, error) {
	res, err := b.Backend.DeleteObject(bucket, key)
	if err == nil {
		b.q.removeObject(bucket, key)
	}
	return res, err
}

func (b *backend) DeleteMulti(bucket string, keys ...string) (gofakes3.MultiDeleteResult, error) {
	res, err := b.Backend.DeleteMulti(bucket, keys...)
	for _, d := range res.Deleted {
		b.q.removeObject(bucket, d.Key)
	}
	return res, err
}
