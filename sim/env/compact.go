package env

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// EtcdSize is the size of etcd's database file and the part of it in use, in bytes.
type EtcdSize struct{ File, InUse int64 }

// StopCompacted stops the environment like Stop, having dropped etcd's history (every revision
// older than the current one) and defragmented its database; it returns the database's size
// before and after. A data directory saved for copying (CopyDataDir) then holds the objects'
// latest state only: each etcd started on a copy pages in no revisions it would never serve. The
// API server stops first, so the defragmentation, which holds a second copy of the database for a
// moment, runs beside etcd alone. envtest only (etcd's JSON gateway).
func (e *Env) StopCompacted(ctx context.Context) (before, after EtcdSize, err error) {
	if e == nil || e.testEnv == nil || e.testEnv.ControlPlane.Etcd == nil || e.testEnv.ControlPlane.Etcd.URL == nil {
		return before, after, errors.New("compacting etcd: only envtest's etcd can be compacted")
	}
	if api := e.testEnv.ControlPlane.APIServer; api != nil {
		if err := api.Stop(); err != nil {
			return before, after, errors.Join(fmt.Errorf("stopping the API server: %w", err), e.Stop())
		}
	}
	before, after, err = compactEtcd(ctx, etcdGateway{base: e.testEnv.ControlPlane.Etcd.URL.String()})
	return before, after, errors.Join(err, e.Stop())
}

func compactEtcd(ctx context.Context, g etcdGateway) (before, after EtcdSize, err error) {
	rev, before, err := g.status(ctx)
	if err != nil {
		return before, after, err
	}
	// Physical: the call returns once the revisions are gone from the database, so the
	// defragmentation that follows frees their pages.
	if err := g.call(ctx, "/v3/kv/compaction", map[string]any{"revision": strconv.FormatInt(rev, 10), "physical": true}, nil); err != nil {
		return before, after, err
	}
	if err := g.call(ctx, "/v3/maintenance/defragment", map[string]any{}, nil); err != nil {
		return before, after, err
	}
	_, after, err = g.status(ctx)
	return before, after, err
}

// etcdGateway calls etcd's gRPC gateway: JSON over HTTP, 64-bit integers as strings.
type etcdGateway struct{ base string }

func (g etcdGateway) status(ctx context.Context) (int64, EtcdSize, error) {
	var st struct {
		Header struct {
			Revision int64 `json:"revision,string"`
		} `json:"header"`
		DBSize      int64 `json:"dbSize,string"`
		DBSizeInUse int64 `json:"dbSizeInUse,string"`
	}
	if err := g.call(ctx, "/v3/maintenance/status", map[string]any{}, &st); err != nil {
		return 0, EtcdSize{}, err
	}
	return st.Header.Revision, EtcdSize{File: st.DBSize, InUse: st.DBSizeInUse}, nil
}

func (g etcdGateway) call(ctx context.Context, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("etcd %s: %w", path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("etcd %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("etcd %s: %s: %s", path, resp.Status, bytes.TrimSpace(data))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("etcd %s: decoding %q: %w", path, data, err)
	}
	return nil
}
