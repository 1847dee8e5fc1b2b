package objects

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"text/template"
)

// Data is what a template sees as its dot.
type Data struct {
	// Index is the object's index in its group, from 0.
	Index int
	// Group is the group's name.
	Group string
	// Namespace is the namespace the object goes to ("" for a cluster-scoped kind).
	Namespace string
	// RunID, Region, VpcID and ClusterName are the run's (Env).
	RunID, Region, VpcID, ClusterName string
	// SubnetIDs are the VPC's subnets (Env).
	SubnetIDs []string
	// Seq is a patch's change sequence number (0 when rendering a group's template).
	Seq int
}

// resolver answers ref and refNamespace: the name and namespace of another group's object.
type resolver interface {
	refName(group string, index int) (string, error)
	refNamespace(group string, index int) (string, error)
}

// parseFuncs are the template functions for parsing, which needs only their names.
func parseFuncs() template.FuncMap { return bindFuncs(nil, Data{}) }

// bindFuncs returns the template functions for rendering one object with data.
func bindFuncs(r resolver, d Data) template.FuncMap {
	return template.FuncMap{
		rangeBudgetFunc: rangeBudget(),
		"awsName":       func(prefix string) (string, error) { return AWSName(prefix, d.RunID, d.Group, d.Index) },
		"ref": func(group string, index int) (string, error) {
			if r == nil {
				return "", errors.New("ref is not available here")
			}
			return r.refName(group, index)
		},
		"refNamespace": func(group string, index int) (string, error) {
			if r == nil {
				return "", errors.New("refNamespace is not available here")
			}
			return r.refNamespace(group, index)
		},
		"add": func(a, b int) (int, error) {
			if s := a + b; (b > 0) != (s > a) && b != 0 {
				return 0, errOverflow
			}
			return a + b, nil
		},
		"sub": func(a, b int) (int, error) {
			if d := a - b; (b > 0) != (d < a) && b != 0 {
				return 0, errOverflow
			}
			return a - b, nil
		},
		"mul": func(a, b int) (int, error) {
			if a != 0 && ((a*b)/a != b || a == -1 && b == math.MinInt) {
				return 0, errOverflow
			}
			return a * b, nil
		},
		"div": func(a, b int) (int, error) {
			switch {
			case b == 0:
				return 0, errors.New("division by zero")
			case a == math.MinInt && b == -1:
				return 0, errOverflow
			}
			return a / b, nil
		},
		"mod": func(a, b int) (int, error) {
			if b == 0 {
				return 0, errors.New("modulo by zero")
			}
			return a % b, nil
		},
		"int":   toInt,
		"float": toFloat,
		"bool":  toBool,
	}
}

var errOverflow = errors.New("integer overflow")

// toInt converts an integer, an integral float or a decimal string to an int.
func toInt(v any) (int, error) {
	switch v := v.(type) {
	case int:
		return v, nil
	case int64:
		return int(v), nil
	case float64:
		if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
			return 0, fmt.Errorf("int: %v is not an integer", v)
		}
		return int(v), nil
	case string:
		i, err := strconv.Atoi(v)
		if err != nil {
			return 0, fmt.Errorf("int: %q is not an integer", v)
		}
		return i, nil
	}
	return 0, fmt.Errorf("int: cannot convert %T", v)
}

// toFloat converts a number or a decimal string to a float64.
func toFloat(v any) (float64, error) {
	switch v := v.(type) {
	case int:
		return float64(v), nil
	case int64:
		return float64(v), nil
	case float64:
		return v, nil
	case string:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return 0, fmt.Errorf("float: %q is not a finite number", v)
		}
		return f, nil
	}
	return 0, fmt.Errorf("float: cannot convert %T", v)
}

// toBool converts a bool or "true"/"false".
func toBool(v any) (bool, error) {
	switch v := v.(type) {
	case bool:
		return v, nil
	case string:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return false, fmt.Errorf("bool: %q is not true or false", v)
		}
		return b, nil
	}
	return false, fmt.Errorf("bool: cannot convert %T", v)
}
