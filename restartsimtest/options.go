package restartsimtest

import (
	"io"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
)

// Option changes how Run runs a scenario.
type Option func(*options)

// options are Run's settings; the zero value takes each field's default.
type options struct {
	// outDir is where the run's folder goes. Default t.TempDir().
	outDir string
	// assetsDir holds kube-apiserver and etcd. Default: the scenario's cluster.envtest.assetsDir,
	// else $KUBEBUILDER_ASSETS, else bin/k8s/<version> of the enclosing module.
	assetsDir string
	// setups fill the named inProcess strategies instead of Run's setup.
	setups map[string]SetupFunc
	// newScheme returns each replica's scheme. Default: client-go's types.
	newScheme func() *runtime.Scheme
	// logger receives the harness's logs. Default: none (the replicas' logs are in the run's
	// folder, <strategy>/controller.log).
	logger logr.Logger
	// report renders report.html and the PNGs into the run's folder. Default off.
	report bool
	// summary receives the summary table. Default: t.Log.
	summary io.Writer
}

// OutDir writes the run's folder under dir instead of a t.TempDir() (which the test removes).
func OutDir(dir string) Option { return func(o *options) { o.outDir = dir } }

// AssetsDir takes kube-apiserver and etcd from dir.
func AssetsDir(dir string) Option { return func(o *options) { o.assetsDir = dir } }

// Setup fills the inProcess strategy named strategy with f instead of Run's setup: two strategies
// can compare two builds of a controller on one fleet and timeline.
func Setup(strategy string, f SetupFunc) Option {
	return func(o *options) {
		if o.setups == nil {
			o.setups = map[string]SetupFunc{}
		}
		o.setups[strategy] = f
	}
}

// Scheme gives each replica's manager the scheme f returns (a new one per call: a setup may add
// to it).
func Scheme(f func() *runtime.Scheme) Option { return func(o *options) { o.newScheme = f } }

// Logger sends the harness's logs to l.
func Logger(l logr.Logger) Option { return func(o *options) { o.logger = l } }

// Report renders report.html and its figures into the run's folder.
func Report() Option { return func(o *options) { o.report = true } }

// Summary sends the summary table to w instead of the test's log.
func Summary(w io.Writer) Option { return func(o *options) { o.summary = w } }
