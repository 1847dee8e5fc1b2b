// Package throttlespec is the one parser of client-side throttle configs in the AWS Load Balancer
// Controller's flag format, `serviceID:operationRegex=rate:burst,...`: the controller builds its limiters
// from it, the simulator scales it and reads the registration rate from it, and the scenario validator
// checks it with it, so a config is accepted before a run exactly when the run can use it.
package throttlespec
