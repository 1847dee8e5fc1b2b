package scenario

import (
	"fmt"
	"os"
	"regexp"
)

// envRef is a ${NAME} reference to an environment variable. Only the braced form is expanded, so a
// lone $ in an argument (a regular expression, a shell word) is passed as written.
var envRef = regexp.MustCompile(`\$\{([^}]*)\}`)

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// LookupEnv is how ${VAR} references are resolved (tests replace it).
var LookupEnv = os.LookupEnv

// expandEnv replaces ${VAR} in the values that name things outside the scenario file: extra CRD
// paths and external controllers' commands and environments. A reference to an unset variable is
// an error at its field, so a scenario that needs e.g. LBC_BINARY says so before anything starts.
func expandEnv(s *Scenario) ErrorList {
	var errs ErrorList
	expand := func(path string, v *string) {
		*v = envRef.ReplaceAllStringFunc(*v, func(ref string) string {
			name := ref[2 : len(ref)-1]
			if !envName.MatchString(name) {
				errs = append(errs, &FieldError{Path: path, Msg: fmt.Sprintf("%s: not a variable name (want ${NAME})", ref)})
				return ref
			}
			val, ok := LookupEnv(name)
			if !ok {
				errs = append(errs, &FieldError{Path: path, Msg: fmt.Sprintf("environment variable %s is not set (referenced as %s)", name, ref)})
				return ref
			}
			return val
		})
	}
	for i := range s.Cluster.CRDs {
		expand(fmt.Sprintf("cluster.crds[%d]", i), &s.Cluster.CRDs[i])
	}
	// Both A/B builds' binaries replace the A/B strategy's command[0]: its reference need not resolve.
	replaced := ""
	if ab := s.AB; ab != nil && ab.Baseline.Binary != "" && ab.Candidate.Binary != "" {
		replaced = ab.Strategy
	}
	external := func(p, strategy string, x *External) {
		if x == nil {
			return
		}
		for i := range x.Command {
			if i == 0 && strategy != "" && strategy == replaced {
				continue
			}
			expand(fmt.Sprintf("%s.command[%d]", p, i), &x.Command[i])
		}
		for _, k := range sortedKeys(x.Env) {
			v := x.Env[k]
			expand(fmt.Sprintf("%s.env[%s]", p, k), &v)
			x.Env[k] = v
		}
	}
	if x := s.Controller.External; x != nil {
		name := x.Name
		if name == "" {
			name = DefaultExternalName
		}
		external("controller.external", name, x)
	}
	for i := range s.Controller.Strategies {
		st := &s.Controller.Strategies[i]
		external(fmt.Sprintf("controller.strategies[%d].external", i), st.Name, st.External)
	}
	return errs
}
