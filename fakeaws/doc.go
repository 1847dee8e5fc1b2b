// Package fakeaws is a loopback AWS endpoint for simulations: it speaks the real ELBv2 (2015-12-01), EC2
// (2016-11-15) and STS (2011-06-15, GetCallerIdentity) AWS Query wire protocol, so unmodified aws-sdk-go-v2
// clients work against it with only BaseEndpoint changed, and serves Route53 (REST-XML 2013-04-01, paths under
// /2013-04-01/) and S3 (path-style, via gofakes3) on the same listener.
//
// Layers: internal/query (form decoding, XML envelopes, the one error-code → HTTP-status table), internal/sigv4
// (signature verification), internal/elbv2, internal/ec2 and internal/sts (handlers per resource),
// internal/route53 (Route53's paths, XML documents and ErrorResponse),
// internal/state (the account), internal/throttle (token buckets per AWS category), internal/faults (latency,
// errors, outages).
// This package wires them into an http.Handler, records every call, exports Prometheus metrics and offers the
// admin API as Go methods and as JSON over HTTP under /_restartsim/.
//
// # Time
//
// Everything runs in scenario time: sim = start + (clock − start) × TimeScale, where clock is Options.Clock.
// Token buckets refill in scenario time (so AWS rates × TimeScale per wall second), injected latency sleeps
// latency ÷ TimeScale of wall time, and all recorded times and durations are scenario time.
//
// # Network interfaces
//
// Instances and ENIs model the VPC CNI as controllers read it: an instance's primary ENI (device index 0) may
// hold pod IPs as secondary addresses, further ENIs attach at other device indexes (a "trunk" among them, for
// security groups for pods), and a pod's "branch" ENI is in use without an attachment. DescribeInstances lists
// every attached ENI by device index; DescribeNetworkInterfaces answers the address, attachment, type and tag
// filters. Seeding refuses what EC2 would (a taken device index, a second trunk, an attached branch).
//
// # Load balancers
//
// Load balancers (application and network), listeners and rules follow ELBv2's rules as a controller meets
// them: names unique per region (the same name and settings returns the existing load balancer), subnets in
// distinct zones of one VPC, an application load balancer without groups gets its VPC's default group, a target
// group serves one load balancer and lists it in LoadBalancerArns, the default rule (Priority "default") carries
// the listener's default actions and cannot be deleted, and Describe never returns an OIDC ClientSecret. A new
// load balancer is "provisioning" for Options.LoadBalancerActiveAfter of scenario time, then "active". The
// default VPC has one subnet per zone a, b and c, tagged kubernetes.io/role/elb and
// kubernetes.io/role/internal-elb, so subnet discovery by tag works as in an EKS cluster. A security group a
// load balancer uses cannot be deleted (DependencyViolation), nor can a target group a listener or rule
// forwards to (ResourceInUse). Fields AWS always describes carry its documented defaults, because clients
// compare or late-initialise them: every load balancer's EnablePrefixForIpv6SourceNat ("off" unless a dualstack
// network load balancer set "on") and every HTTPS listener's MutualAuthentication (Mode "off" unless
// "passthrough").
//
// # Route53
//
// Hosted zones (public, or private with a VPC), their record sets (A, AAAA, CNAME, TXT, NS, SOA, MX, SRV, CAA
// and the rest; alias targets; weighted, latency, failover and multivalue sets by SetIdentifier), tags, and
// changes. A new zone gets its SOA and NS sets; only a zone holding nothing else can be deleted
// (HostedZoneNotEmpty). ListResourceRecordSets pages by at most 300 in Route53's order (by name with the labels
// reversed, then type, then set identifier) with NextRecordName/Type/Identifier; names are returned lower case
// with a trailing dot and "*" as \052. ChangeResourceRecordSets applies a batch atomically, each change seeing
// the ones before it (a DELETE then a CREATE of one set replaces it), and refuses it with InvalidChangeBatch
// and Route53's messages (CREATE of an existing set, DELETE not matching exactly, a CNAME beside other types,
// a name outside the zone, a bad value; more than 1,000 ResourceRecord elements or 32,000 value characters,
// an UPSERT's counting twice). A change is PENDING for Options.Route53PropagationDelay of scenario time, then
// INSYNC. Route53 is fakeaws's one global service (IAM and CloudFront are not served): its requests are
// signed for service route53 in us-east-1, where an SDK signs for the global endpoint, or in the server's
// region, where an SDK whose endpoint is overridden signs (it keeps the client's region), so Options.Region
// names only the regional services' region; a scope naming any other region is refused with
// SignatureDoesNotMatch. Errors are Route53's ErrorResponse (InvalidChangeBatch with its Messages list). All
// operations share one bucket (route53/request, AWS's 5 requests per second) answered with 400 Throttling
// "Rate exceeded". Route53 is part of a Snapshot.
//
// # Authentication
//
// AWS requests must carry a SigV4 Authorization header signed with Options.AccessKeyID/SecretAccessKey; the
// request is routed by the credential scope's service (elasticloadbalancing, ec2, sts, s3), and to Route53 by
// its path. GetCallerIdentity
// names the IAM user "restartsim" of Options.AccountID, the account in every ARN fakeaws makes. Presigned requests
// (X-Amz-Signature in the query string) are accepted too. X-Amz-Date must be within Options.MaxClockSkew of
// Options.WallClock — real time, not scenario time, which may run faster than the clients' clocks — and a
// presigned request expires after X-Amz-Expires; late requests get the real errors (ELB SignatureDoesNotMatch
// "Signature expired: ...", EC2 RequestExpired, S3 RequestTimeTooSkewed or AccessDenied). Bodies over
// Options.MaxBodyBytes get 413 RequestEntityTooLarge in the service's error format. The admin HTTP API accepts
// either a SigV4-signed request (any service name in the scope) or the two headers
// X-Restartsim-Access-Key-Id and X-Restartsim-Secret-Access-Key carrying the same credentials. GET /healthz
// needs none.
//
// # Hostile input
//
// What a request's headers decide of SigV4 (the header's format, the access key, the signing date against
// the scope and the clock, the region, a signature of 64 hex digits; for S3, which signs the payload's hash
// in a header, the whole signature) is checked before its body is read, so a client without the
// credentials costs no body at all. A body is read into a buffer that starts at 4 KiB and doubles only when
// full, never sized from Content-Length, under a byte budget shared by all connections
// (Options.MaxInFlightBodyBytes, exported as fakeaws_inflight_body_bytes); at most three quarters of
// Options.MaxConnections bodies are read at once, so that /healthz still gets a connection, and a body that
// stops arriving for a sixth of the read timeout is cut off. A body that finds no room is refused with 503
// (ServiceUnavailable, EC2 Unavailable, S3 SlowDown). The form is decoded only once the signature matches.
// Signed forms are bounded by Options.FormLimits (parameter count, key length, key depth); a list not
// numbered 1..n is a ValidationError (EC2: InvalidParameterValue), as is a parameter that is not valid
// UTF-8. Error messages repeat at most 256 bytes of any value a client sent. S3 objects are bounded by
// Options.MaxObjectBytes (EntityTooLarge, from the declared length before the body is read) and everything
// S3 holds by Options.MaxStoredBytes (InsufficientCapacity, 507); versioning is off. The recorder holds the
// newest Options.MaxRecordedCalls calls (a refused call with its error code and, for Route53 and the Query
// services, the first MaxErrorMessage bytes of its message) and counts the ones it drops; connections have read, write and idle
// timeouts and a limit (Options.MaxConnections, at which the connection waiting longest without a request
// in a handler makes room for a new one); Start refuses an address beyond loopback before binding it,
// and Start and Serve refuse such a listener, unless Options.AllowNonLoopback.
package fakeaws
