//go:build mutants

package controller

// mutantsBuildTag: built with -tags mutants, mutants need no AllowMutants.
const mutantsBuildTag = true
