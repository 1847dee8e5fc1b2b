package controller

import (
	"net/http"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// newMemoMapper is a manager MapperProvider: controller-runtime's dynamic RESTMapper with
// RESTMapping answers memoised.
func newMemoMapper(cfg *rest.Config, hc *http.Client) (meta.RESTMapper, error) {
	m, err := apiutil.NewDynamicRESTMapper(cfg, hc)
	if err != nil {
		return nil, err
	}
	return &memoMapper{RESTMapper: m, mappings: map[memoKey]*meta.RESTMapping{}}, nil
}

// memoMapper memoises successful RESTMapping answers. A namespace-scoped cache
// (Options.Namespaces) asks the mapper whether the kind is namespaced on every cached Get and
// List; the dynamic mapper answers through a priority and a multi mapper that allocate a
// no-match error per API group on each call, ~18 % of a restart's CPU in BenchmarkRestartSync.
// A kind's mapping does not change while it is served (the dynamic mapper itself only reloads
// on a miss); misses are not memoised, so kinds installed later are still found.
type memoMapper struct {
	meta.RESTMapper
	mu       sync.RWMutex
	mappings map[memoKey]*meta.RESTMapping
}

type memoKey struct {
	gk       schema.GroupKind
	versions string
}

func (m *memoMapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	key := memoKey{gk: gk, versions: strings.Join(versions, ",")}
	m.mu.RLock()
	r, ok := m.mappings[key]
	m.mu.RUnlock()
	if ok {
		return r, nil
	}
	r, err := m.RESTMapper.RESTMapping(gk, versions...)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	m.mappings[key] = r
	m.mu.Unlock()
	return r, nil
}
