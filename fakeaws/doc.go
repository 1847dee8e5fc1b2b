// Package fakeaws is a loopback AWS endpoint for simulations. It serves, on one listener: ELBv2 (2015-12-01),
// EC2 (2016-11-15: VPCs, subnets, zones, security groups, ENIs, instances and the capacity API that
// provisions them), STS (2011-06-15, GetCallerIdentity) and IAM (2010-05-08: roles and instance profiles)
// over the AWS Query wire protocol; Route53 (REST-XML 2013-04-01, paths under /2013-04-01/); ACM (AWS JSON
// 1.1, X-Amz-Target CertificateManager.*), SSM Parameter Store reads (AWS JSON 1.1) and EKS DescribeCluster
// (REST-JSON); and S3 (path-style, via gofakes3). Unmodified
// aws-sdk-go-v2 clients, the AWS CLI and controllers built on them work against it with only the endpoint
// changed.
//
// Layers: internal/query (form decoding, XML envelopes, the one error-code → HTTP-status table), internal/sigv4
// (signature verification), internal/elbv2, internal/ec2, internal/sts, internal/iam, internal/ssm and
// internal/eks (handlers per resource),
// internal/route53 (Route53's paths, XML documents and ErrorResponse), internal/acm (ACM's JSON operations),
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
// # EC2 capacity
//
// The operations a node provisioner (Karpenter) calls. DescribeInstanceTypes and DescribeInstanceTypeOfferings
// answer from internal/catalog: 67 current types (m5, m6i, m7i, c5, c6i, c7i, r5, r6i, r6g, t3, m6g, m7g, c6g,
// c7g; several sizes each) with AWS's vCPU, memory, ENI, IPv4-per-ENI, hypervisor and network card figures,
// offered in every zone. DescribeImages answers four seeded EKS-optimised AL2023 AMIs (x86_64 and arm64, owner
// 602401143452, alias amazon). DescribeSpotPriceHistory answers a constant, deterministic spot price per type
// and zone. Launch templates keep their data (image, user data, groups, instance profile, and every other
// LaunchTemplateData member as sent); names are unique (InvalidLaunchTemplateName.AlreadyExistsException).
// CreateFleet (instant) orders its overrides by the allocation strategy (prioritized by Priority, the others
// by price), lists an error for each override whose type and zone has an injected capacity error
// (SetCapacityError, POST /_restartsim/capacity-error) and launches from the first pool with capacity;
// RunInstances answers that error. A launched instance takes a free address of its subnet on a new primary
// ENI, carries its type, image, launch template, lifecycle and user data, and is "pending" for
// Options.InstanceBootDelay of scenario time (default 15 s), then "running". TerminateInstances makes it
// "shutting-down", "terminated" 30 s later (its primary ENI deleted, others detached), and gone from
// DescribeInstances an hour after that. Throttling adds AWS's resource token buckets to the request buckets:
// one token per instance launched (RunInstances, CreateFleet: 1,000, 2 per second) or terminated
// (TerminateInstances: 1,000, 20 per second), RequestLimitExceeded when empty. DescribeInstanceStatus
// reports every running instance's checks passed and no scheduled events.
//
// Karpenter v1.15 runs against it with CLUSTER_NAME, ISOLATED_VPC=true (no Pricing API), no
// INTERRUPTION_QUEUE (no SQS), Options.EKSCluster describing the cluster, and an EC2NodeClass as its guide
// writes one (amiSelectorTerms alias al2023@latest, a role seeded by Options.IAMRoles): it launches
// NodeClaims with CreateLaunchTemplate and CreateFleet. docs/external-controllers.md lists the objects and
// the calls it makes.
//
// # IAM, SSM and EKS
//
// What a node provisioner needs of them. IAM: GetRole on roles the harness seeds (Options.IAMRoles,
// SeedRole, POST /_restartsim/seed/role); instance profiles created, got, listed by path prefix (paged by
// MaxItems and Marker), tagged and deleted, holding at most one role (LimitExceeded for a second), with
// NoSuchEntity, EntityAlreadyExists, DeleteConflict (a profile that still holds its role), ValidationError
// for a name outside [\w+=,.@-]{1,128} or a path not /.../, and LimitExceeded past 1,000 profiles or 50 tags.
// IAM is global: requests are signed for service iam in us-east-1, or in the server's region (a client with
// only an endpoint signs in its own). IAM is not part of a Snapshot. SSM: GetParameter and GetParameters
// over the EKS AMI parameters of every Kubernetes version 1.20 to 1.45
// (/aws/service/eks/optimized-ami/<k8s>/amazon-linux-2023/<arch>/standard/recommended/image_id, the newest
// seeded image of the architecture, and .../standard/amazon-eks-node-al2023-<arch>-standard-<k8s>-v<date>/
// image_id for each release), ParameterNotFound for the rest (GPU variants, AL2, Bottlerocket: there are no
// such images), InvalidParameters for GetParameters' unknown names. EKS: DescribeCluster (GET
// /clusters/{name}) for the cluster of Options.EKSCluster (SetEKSCluster, POST /_restartsim/eks/cluster):
// ACTIVE, its endpoint, certificate authority, version, service CIDR and ip family; ResourceNotFoundException
// (404) for another name. Their errors are the JSON protocols' (X-Amzn-ErrorType and __type). Buckets:
// Parameter Store's documented 40 per second, shared by GetParameter and GetParameters (ssm/parameter-store,
// ThrottlingException); AWS documents no request rate for IAM or EKS, so iam/request and eks/request are
// unlimited in every profile unless overridden.
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
// # Certificates
//
// ACM holds the account's certificates: ImportCertificate (a PEM X.509 certificate whose private key must
// match, and an optional PEM chain; re-import into an existing ARN keeps its tags), RequestCertificate (DNS or
// email validation; PENDING_VALIDATION for Options.CertificateIssueDelay of scenario time, default 1 m, then
// ISSUED, as AWS issues once it finds the validation CNAME; an IdempotencyToken names the same certificate for
// an hour), DescribeCertificate, ListCertificates (status and key type filters, RSA_2048 only by default as
// ACM lists; MaxItems and NextToken paging), DeleteCertificate (ResourceInUseException while a listener uses
// it), AddTagsToCertificate and ListTagsForCertificate. Each operation has its own bucket at ACM's documented
// rate (ImportCertificate and ListCertificates 1, AddTagsToCertificate and RequestCertificate 5, the others
// 10 per second; ThrottlingException). An HTTPS or TLS listener's certificates must be ISSUED certificates of
// this ACM, else CertificateNotFound; IAM server certificates are refused (IAM is not served). SeedCertificate
// (POST /_restartsim/seed/certificate) adds an issued certificate for a domain without PEMs, under a given ARN
// of the account and region if asked.
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
// INSYNC. Route53 and IAM are fakeaws's global services (CloudFront is not served): Route53's requests are
// signed for service route53 in us-east-1, where an SDK signs for the global endpoint, or in the server's
// region, where an SDK whose endpoint is overridden signs (it keeps the client's region), so Options.Region
// names only the regional services' region; a scope naming any other region is refused with
// SignatureDoesNotMatch. Errors are Route53's ErrorResponse (InvalidChangeBatch with its Messages list). All
// operations share one bucket (route53/request, AWS's 5 requests per second) answered with 400 Throttling
// "Rate exceeded". Route53 is part of a Snapshot.
//
// Names follow "DNS domain name format": a record name with an empty label, a label over 63 bytes, over 255
// bytes in all or a raw space (which must be written \040) is InvalidChangeBatch ("FATAL problem:
// DomainLabelEmpty ..."); a zone so named, a wildcard zone or a top-level domain (com) is InvalidDomainName.
// Values are checked by type: A and AAAA addresses, TXT and SPF quoted character strings of at most 255
// characters (TXTRDATATooLong), MX "priority server", one CNAME value. Sets of one name and type share one
// routing policy (a simple set beside weighted ones: "cannot be created as other RRSets exist with the same
// name and type"). An alias must resolve: into a zone of the account, to a set of its name and type there
// ("that target was not found", "does not lie within the target zone", and an alias to itself "creates a
// CNAME or alias loop"), or into an AWS service's zone (ELB's per region, CloudFront's, or any other zone
// for a name under amazonaws.com or cloudfront.net) under that service's domain, whose targets are not
// looked up. Field lengths are InvalidInput: a value over 4,000
// characters, SetIdentifier over 128, an alias DNSName or StartRecordName over 1,024, a batch or zone
// comment over 256, CallerReference over 128, a tag key over 128 or value over 256, StartRecordType not a
// record type, a StartRecordName breaking the name format. A delegation set names its servers without the
// trailing dot the NS set has.
//
// Route53's state is bounded by MaxRoute53Bytes (32 MiB, counted with Go's overheads; Server.Route53Bytes):
// zones, record sets and tags share 28 MiB, refused past it with TooManyHostedZones, InvalidChangeBatch
// ("Limits Exceeded") or LimitsExceeded (tags); changes kept for GetChange take at most 4 MiB (and 65,536),
// the oldest forgotten first.
//
// # S3
//
// Path-style S3 through gofakes3, with S3's answers where gofakes3 differs: creating a bucket you already
// own succeeds in us-east-1 and is BucketAlreadyOwnedByYou (409) elsewhere; a ranged GET carries no
// checksum of the whole object (the SDK would fail it); CompleteMultipartUpload refuses a part but the last
// under 5 MiB with EntityTooSmall (a quarter of Options.MaxObjectBytes when that is 5 MiB or less);
// ListObjectsV2 always has KeyCount; bucket tagging is served (at most 50 tags, keys of 128 and values of
// 256 characters, InvalidTag, NoSuchTagSet; charged to Options.MaxStoredBytes); object tagging and the
// subresources gofakes3 would mistake for another operation (acl, policy, cors, lifecycle, website, ...)
// are NotImplemented (501), S3's answer for functionality it does not implement.
//
// # Authentication
//
// AWS requests must carry a SigV4 Authorization header signed with Options.AccessKeyID/SecretAccessKey; the
// request is routed by the credential scope's service (elasticloadbalancing, ec2, sts, iam, ssm, eks, s3),
// and to Route53 by its path. GetCallerIdentity
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
