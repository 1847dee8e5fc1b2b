package sim

import (
	"fmt"
	"slices"

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
func checkHost(o runConfig, full, sc *scenario.Scenario) error {
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
func checkEnvtestAssets(o runConfig, sc *scenario.Scenario) error {
	if !onKubeconfig(o, sc) && o.AssetsDir == "" && (sc.Cluster.Envtest == nil || sc.Cluster.Envtest.AssetsDir == "") {
		if _, err := envtestassets.Dir(""); err != nil {
			return runerr.BadInput(fmt.Errorf("%w: %v", env.ErrEnvironment, err))
		}
	}
	return nil
}

// knownTemplateData is the template data of a command known before the run starts; the rest
// (kubeconfig, endpoint, ports, certificate directory, VPC, namespace) exists only once it has.
func knownTemplateData(o runConfig, sc *scenario.Scenario) scenario.TemplateData {
	cr := runCreds(o, sc)
	return scenario.TemplateData{Region: cr.Region, AccessKeyID: cr.AccessKey, SecretAccessKey: cr.SecretKey, ClusterName: "restartsim"}
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
	// Both A/B builds' binaries replace the A/B strategy's command[0], left unexpanded then.
	replaced := ""
	if ab := sc.AB; ab != nil && ab.Baseline.Binary != "" && ab.Candidate.Binary != "" {
		replaced = ab.Strategy
	}
	for i, st := range sc.Controller.Strategies {
		if !slices.Contains(run, st.Name) {
			continue
		}
		p := fmt.Sprintf("controller.strategies[%d]", i)
		if st.Name != replaced {
			command(p+".external", st.External)
		}
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
