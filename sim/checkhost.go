package sim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/restartsim/restartsim/internal/envtestassets"
	"github.com/restartsim/restartsim/sim/env"
	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/scenario"
)

// checkHost checks what a run needs of this machine before it creates anything: the executables its
// strategies run, the extra CRD files, the kubeconfig and the envtest assets. Each problem of the
// scenario's own fields names file, line and field; full is the scenario as parsed (before
// Options.Strategies picked some), so that a strategy's field is named at its place in the file, and
// sc the scenario that runs.
func checkHost(o Options, full, sc *scenario.Scenario) error {
	if o.Kubeconfig != "" {
		if err := checkRegularFile(o.Kubeconfig); err != nil {
			return runerr.BadInput(fmt.Errorf("--kubeconfig: %w", err))
		}
	}
	if !onKubeconfig(o, sc) && o.AssetsDir != "" {
		if _, err := envtestassets.In(o.AssetsDir, "--envtest-assets"); err != nil {
			return runerr.BadInput(err)
		}
	}
	var errs scenario.ErrorList
	known := knownTemplateData(o, sc)
	for _, x := range executables(full, withConverging(full, sc.StrategyNames())) {
		if err := checkCommand(x.name, known); err != nil {
			errs = append(errs, full.FieldError(x.path, "%v", err))
		}
	}
	for i, p := range sc.Cluster.CRDs {
		if err := env.CheckCRDs(p); err != nil {
			errs = append(errs, full.FieldError(fmt.Sprintf("cluster.crds[%d]", i), "%v", err))
		}
	}
	if k := sc.Cluster.Kubeconfig; k != nil && o.Kubeconfig == "" {
		path, err := kubeconfigPath(o, sc)
		if err == nil {
			err = checkRegularFile(path)
		}
		if err != nil {
			errs = append(errs, full.FieldError("cluster.kubeconfig.path", "%v", err))
		}
	}
	if e := sc.Cluster.Envtest; e != nil && e.AssetsDir != "" && o.AssetsDir == "" && !onKubeconfig(o, sc) {
		if _, err := envtestassets.In(e.AssetsDir, "cluster.envtest.assetsDir"); err != nil {
			errs = append(errs, full.FieldError("cluster.envtest.assetsDir", "%v", err))
		}
	}
	if len(errs) > 0 {
		return runerr.BadInput(errs)
	}
	return nil
}

// checkEnvtestAssets finds the default envtest assets (when no flag or field names them): this
// machine's set-up rather than the scenario's, so Check leaves it to the run.
func checkEnvtestAssets(o Options, sc *scenario.Scenario) error {
	if !onKubeconfig(o, sc) && o.AssetsDir == "" && (sc.Cluster.Envtest == nil || sc.Cluster.Envtest.AssetsDir == "") {
		if _, err := envtestassets.Dir(""); err != nil {
			return runerr.BadInput(fmt.Errorf("%w: %v", env.ErrEnvironment, err))
		}
	}
	return nil
}

// namedExecutable is an executable a scenario field names.
type namedExecutable struct{ path, name string }

// executables lists the executables the strategies named run starts: external controllers'
// commands, reference builds' binaries and the A/B sides' (templates, rendered by checkCommand
// with what is known before the start).
func executables(sc *scenario.Scenario, run []string) []namedExecutable {
	var out []namedExecutable
	add := func(path, name string) {
		if name != "" {
			out = append(out, namedExecutable{path, name})
		}
	}
	command := func(path string, x *scenario.External) {
		if x != nil && len(x.Command) > 0 {
			add(path+".command[0]", x.Command[0])
		}
	}
	command("controller.external", sc.Controller.External)
	for i, st := range sc.Controller.Strategies {
		if !slices.Contains(run, st.Name) {
			continue
		}
		p := fmt.Sprintf("controller.strategies[%d]", i)
		command(p+".external", st.External)
		add(p+".binary", st.Binary)
	}
	if ab := sc.AB; ab != nil && slices.Contains(run, ab.Strategy) {
		add("ab.baseline.binary", ab.Baseline.Binary)
		add("ab.candidate.binary", ab.Candidate.Binary)
	}
	return out
}

// withConverging is run and the strategies run's converge with (convergeWith), whose controllers
// the run starts too.
func withConverging(full *scenario.Scenario, run []string) []string {
	out := slices.Clone(run)
	for _, st := range full.Controller.Strategies {
		if st.ConvergeWith != "" && slices.Contains(run, st.Name) && !slices.Contains(out, st.ConvergeWith) {
			out = append(out, st.ConvergeWith)
		}
	}
	return out
}

// executableMagic are the starts of the files a run can execute: ELF and Mach-O binaries, and
// scripts with an interpreter line.
var executableMagic = [][]byte{
	[]byte("\x7fELF"), []byte("#!"),
	{0xfe, 0xed, 0xfa, 0xce}, {0xfe, 0xed, 0xfa, 0xcf}, {0xce, 0xfa, 0xed, 0xfe}, {0xcf, 0xfa, 0xed, 0xfe}, {0xca, 0xfe, 0xba, 0xbe},
}

// checkExecutable checks that name (a path, or a command looked up on PATH) is a regular file this
// user may execute, and an executable or a script by its first bytes: what exec would refuse, or
// the kernel fail with "exec format error", is found before anything starts. Whether the program
// then runs is its own business (a --version probe is no test: a wrapper script may take long).
func checkExecutable(name string) error {
	path := name
	if !strings.ContainsRune(name, filepath.Separator) {
		p, err := exec.LookPath(name)
		if err != nil {
			return fmt.Errorf("%q: no such executable on PATH", name)
		}
		path = p
	}
	if err := checkRegularFile(path); err != nil {
		return err
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not executable (mode %v; chmod +x it)", path, st.Mode().Perm())
	}
	if err := syscall.Access(path, 1); err != nil { // X_OK
		return fmt.Errorf("%s is not executable by this user: %w", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 4)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return err
	}
	for _, m := range executableMagic {
		if bytes.HasPrefix(head[:n], m) {
			return nil
		}
	}
	return fmt.Errorf("%s is neither an executable (ELF, Mach-O) nor a script starting with #!", path) //nolint:staticcheck // ST1005: "#!" is the shebang, not punctuation
}

// checkRegularFile checks that path exists and is a file (symbolic links followed).
func checkRegularFile(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	return nil
}

// kubeconfigPath is the kubeconfig file a run on an existing cluster uses: --kubeconfig, else the
// scenario's cluster.kubeconfig.path, else the first file of $KUBECONFIG, else ~/.kube/config.
func kubeconfigPath(o Options, sc *scenario.Scenario) (string, error) {
	if o.Kubeconfig != "" {
		return o.Kubeconfig, nil
	}
	if k := sc.Cluster.Kubeconfig; k != nil && k.Path != "" {
		return k.Path, nil
	}
	for _, p := range filepath.SplitList(os.Getenv("KUBECONFIG")) {
		if p != "" {
			return p, nil
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no kubeconfig: $KUBECONFIG is unset and %w", err)
	}
	return filepath.Join(home, ".kube", "config"), nil
}
