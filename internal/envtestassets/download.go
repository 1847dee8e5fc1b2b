package envtestassets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/tools/setup-envtest/remote"
	"sigs.k8s.io/controller-runtime/tools/setup-envtest/store"
	"sigs.k8s.io/controller-runtime/tools/setup-envtest/versions"
)

// IndexEnvVar names a mirror of setup-envtest's release index (setup-envtest itself has only a flag).
const IndexEnvVar = "RESTARTSIM_ENVTEST_INDEX"

// OldestMinor is the oldest Kubernetes minor restartsim runs against: its client libraries are
// Version's minor, and client-go supports a server one minor older. Newer minors than Version's
// are not supported until the libraries move.
const OldestMinor = 36

// SupportedRange says which Kubernetes versions restartsim runs against, for messages.
func SupportedRange() string {
	return fmt.Sprintf("1.%d.0 to 1.%d.x", OldestMinor, versionMinor())
}

func versionMinor() int {
	minor, _ := strconv.Atoi(strings.Split(Version, ".")[1])
	return minor
}

// Supported reports whether v is in SupportedRange.
func Supported(v versions.Concrete) bool {
	return v.Major == 1 && v.Minor >= OldestMinor && v.Minor <= versionMinor()
}

// FetchOptions configure Fetch.
type FetchOptions struct {
	// IndexURL is the release index. Default: $RESTARTSIM_ENVTEST_INDEX, else setup-envtest's.
	IndexURL string
	// StoreDir is setup-envtest's store. Default: where setup-envtest keeps it.
	StoreDir string
	// Progress receives what is fetched, a line of bytes and rate every ProgressEvery, and the end.
	Progress      io.Writer
	ProgressEvery time.Duration // default 5 s
	// HeaderTimeout bounds the index request, and the archive request up to its first byte, so
	// an unreachable or silent index fails fast. Default: 4 s.
	HeaderTimeout time.Duration
	// StallTimeout is the longest a download may go without a byte; a slow one never times out
	// while bytes arrive. Default: 1 min.
	StallTimeout time.Duration
}

func (o *FetchOptions) setDefaults() error {
	if o.IndexURL == "" {
		o.IndexURL = os.Getenv(IndexEnvVar)
	}
	if o.IndexURL == "" {
		o.IndexURL = remote.DefaultIndexURL
	}
	if o.StoreDir == "" {
		d, err := store.DefaultStoreDir()
		if err != nil {
			return fmt.Errorf("no setup-envtest store directory: %w", err)
		}
		o.StoreDir = d
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = 5 * time.Second
	}
	if o.HeaderTimeout <= 0 {
		o.HeaderTimeout = 4 * time.Second
	}
	if o.StallTimeout <= 0 {
		o.StallTimeout = time.Minute
	}
	return nil
}

// Fetched is the store directory Fetch found or filled.
type Fetched struct {
	Dir        string
	Version    string
	Downloaded bool // false: the store already held it, and no request was made
}

// Fetch makes setup-envtest's store hold the newest supported release for this platform. A store
// already holding a supported release is used without a request. Otherwise it reads the index
// with setup-envtest's client, downloads the archive to a temporary file (the client checks its
// SHA-512 against the index), and only then unpacks it into the store, so a refused or broken
// archive is never installed.
func Fetch(ctx context.Context, o FetchOptions) (*Fetched, error) {
	if err := o.setDefaults(); err != nil {
		return nil, err
	}
	ctx = logr.NewContext(ctx, logr.Discard()) // the store logs through the context
	st := store.NewAt(o.StoreDir)
	if f := inStore(o.StoreDir); f != nil {
		return f, nil
	}
	if err := os.MkdirAll(o.StoreDir, 0o755); err != nil {
		return nil, err
	}
	unlock, err := lockDir(ctx, o.StoreDir, o.Progress, 200*time.Millisecond)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if f := inStore(o.StoreDir); f != nil { // fetched while this call waited for the lock
		return f, nil
	}
	client := &remote.HTTPClient{Log: logr.Discard(), IndexURL: o.IndexURL}
	item, pl, err := o.pick(ctx, client)
	if err != nil {
		return nil, err
	}
	archive, err := o.download(ctx, client, item, pl)
	if err != nil {
		return nil, err
	}
	defer func() { archive.Close(); os.Remove(archive.Name()) }()
	if err := st.Add(ctx, item, archive); err != nil {
		return nil, fmt.Errorf("unpacking %s: %w", pl.ArchiveName(item.Version), err)
	}
	dir, err := st.Path(item)
	if err != nil {
		return nil, err
	}
	if _, err := checked(dir, "the archive "+pl.ArchiveName(item.Version)); err != nil {
		_, _ = st.Remove(ctx, store.Filter{Version: versions.Spec{Selector: item.Version}, Platform: item.Platform})
		return nil, err
	}
	return &Fetched{Dir: dir, Version: item.Version.String(), Downloaded: true}, nil
}

// pick reads the index and returns the newest supported release for this platform.
func (o *FetchOptions) pick(ctx context.Context, client *remote.HTTPClient) (store.Item, versions.PlatformItem, error) {
	ictx, cancel := context.WithTimeoutCause(ctx, o.HeaderTimeout, fmt.Errorf("no index within %s", o.HeaderTimeout))
	defer cancel()
	sets, err := client.ListVersions(ictx)
	if err != nil {
		return store.Item{}, versions.PlatformItem{}, fmt.Errorf("envtest index %s: %w", o.IndexURL, causeOf(ictx, err))
	}
	for _, s := range sets { // newest first
		if !Supported(s.Version) {
			continue
		}
		for _, p := range s.Platforms {
			if p.OS == runtime.GOOS && p.Arch == runtime.GOARCH {
				return store.Item{Version: s.Version, Platform: p.Platform}, p, nil
			}
		}
	}
	return store.Item{}, versions.PlatformItem{}, fmt.Errorf("envtest index %s lists no archive of Kubernetes %s for %s/%s",
		o.IndexURL, SupportedRange(), runtime.GOOS, runtime.GOARCH)
}

// errSilent ends a request that sends nothing for HeaderTimeout.
var errSilent = errors.New("no response")

// download writes the archive to a temporary file in the store, checked against the index's sum,
// and returns it rewound. A timer cancels the request when no byte arrives for HeaderTimeout
// (before the first) or StallTimeout (after).
func (o *FetchOptions) download(ctx context.Context, client *remote.HTTPClient, item store.Item, pl versions.PlatformItem) (*os.File, error) {
	name := pl.ArchiveName(item.Version)
	fmt.Fprintf(o.Progress, "downloading %s from the envtest index %s into setup-envtest's store %s\n", name, o.IndexURL, o.StoreDir)
	f, err := os.CreateTemp(o.StoreDir, ".envtest-*.tar.gz.tmp")
	if err != nil {
		return nil, err
	}
	dctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	m := &meter{w: f, progress: o.Progress, name: name, every: o.ProgressEvery, stall: o.StallTimeout, start: time.Now()}
	m.last = m.start
	m.guard = time.AfterFunc(o.HeaderTimeout, func() {
		cancel(fmt.Errorf("%w within %s", errSilent, o.HeaderTimeout))
	})
	m.onStall = func() { cancel(fmt.Errorf("stalled: no byte for %s", o.StallTimeout)) }
	err = client.GetVersion(dctx, item.Version, pl, m)
	m.guard.Stop()
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, causeOf(dctx, err)
	}
	fmt.Fprintf(o.Progress, "downloaded %s: %s in %s (%s/s), SHA-512 as the index says\n",
		name, mib(m.n), time.Since(m.start).Round(100*time.Millisecond), mib(m.rate()))
	return f, nil
}

// causeOf names why ctx ended when err came from it, else returns err.
func causeOf(ctx context.Context, err error) error {
	c := context.Cause(ctx)
	if c == nil || ctx.Err() == nil || errors.Is(c, context.Canceled) || strings.Contains(err.Error(), c.Error()) {
		return err // net/http names the cause itself
	}
	return fmt.Errorf("%w (%v)", c, oneLine(err))
}

// oneLine keeps an error to a line for the fallback's message.
func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

// meter writes the archive, restarting the stall timer on every chunk and printing bytes and rate.
type meter struct {
	w           io.Writer
	progress    io.Writer
	name        string
	every       time.Duration
	stall       time.Duration
	guard       *time.Timer
	onStall     func()
	n           int64
	start, last time.Time
	stalling    bool
}

func (m *meter) Write(p []byte) (int, error) {
	if !m.stalling { // after the first byte, silence means a stall
		m.stalling = true
		m.guard.Stop()
		m.guard = time.AfterFunc(m.stall, m.onStall)
	} else {
		m.guard.Reset(m.stall)
	}
	n, err := m.w.Write(p)
	m.n += int64(n)
	if now := time.Now(); now.Sub(m.last) >= m.every {
		m.last = now
		fmt.Fprintf(m.progress, "  downloading %s: %s so far, %s/s\n", m.name, mib(m.n), mib(m.rate()))
	}
	return n, err
}

func (m *meter) rate() int64 {
	s := time.Since(m.start).Seconds()
	if s <= 0 {
		return 0
	}
	return int64(float64(m.n) / s)
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// inStore returns the newest supported release for this platform in setup-envtest's store at root
// that holds both binaries, or nil.
func inStore(root string) *Fetched {
	for _, e := range storeReleases(root) {
		if _, err := checked(e.Dir, "setup-envtest"); err == nil {
			return &e
		}
	}
	return nil
}

// storeReleases lists the supported releases for this platform in the store at root, newest first.
func storeReleases(root string) []Fetched {
	ctx := logr.NewContext(context.Background(), logr.Discard())
	st := store.NewAt(root)
	items, err := st.List(ctx, store.Filter{Version: versions.AnyVersion,
		Platform: versions.Platform{OS: runtime.GOOS, Arch: runtime.GOARCH}})
	if err != nil {
		return nil
	}
	var out []Fetched
	for _, it := range items {
		if !Supported(it.Version) {
			continue
		}
		if dir, err := st.Path(it); err == nil {
			out = append(out, Fetched{Dir: dir, Version: it.Version.String()})
		}
	}
	return out
}
