package lb

// Internals the external tests (package lb_test, which imports package controller) read.
var StackLabels = stackLabels

const ResultDeployed = resultDeployed
