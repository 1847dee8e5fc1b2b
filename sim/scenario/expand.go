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
	external := func(p string, x *External) {
		if x == nil {
			return
		}
		for i := range x.Command {
			expand(fmt.Sprintf("%s.command[%d]", p, i), &x.Command[i])
		}
		for _, k := range sortedKeys(x.Env) {
			v := x.Env[k]
			expand(fmt.Sprintf("%s.env[%s]", p, k), &v)
			x.Env[k] = v
		}
	}
	external("controller.external", s.Controller.External)
	for i := range s.Controller.Strategies {
		external(fmt.Sprintf("controller.strategies[%d].external", i), s.Controller.Strategies[i].External)
	}
	return errs
}
