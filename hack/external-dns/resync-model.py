# Paper model of external-dns's restart sync against one run (docs/history/performance-notebook.md, external-dns): usage
#   python3 hack/external-dns/resync-model.py out/<scenario>/<time>/
import json, sys, datetime, statistics
d = sys.argv[1].rstrip('/') + '/'
rate, burst = 5.0, 5
res = json.load(open(d + 'results.json'))
s = res['strategies'][0]
rs = s['restarts'][0]
calls = [json.loads(l) for l in open(d + 'external-dns/aws-calls.jsonl')]
def t(c): return datetime.datetime.fromisoformat(c['time'].replace('Z', '+00:00')).timestamp()
r53 = [c for c in calls if c['service'] == 'route53' and c['operation'] != 'CreateHostedZone']
# the restart's sync: route53 calls after the stop; align the log with results' seconds by the first meaningful mutation
crrs = [c for c in r53 if c['operation'] == 'ChangeResourceRecordSets' and c['outcome'] == 'ok']
# find first CRRS after a gap of >= 4 s (the downtime) in the call log
gap_i = max(i for i in range(1, len(r53)) if t(r53[i]) - t(r53[i-1]) >= 4.5)  # the downtime: the last long silence
sync = r53[gap_i:]
t0 = t(sync[0])
first_crrs = next(c for c in sync if c['operation'] == 'ChangeResourceRecordSets' and c['outcome'] == 'ok')
off = rs['firstMeaningfulSeconds'] - t(first_crrs)   # results seconds = log time + off
start = t0 + off
print(f"sync's first call at +{start:.2f}s (started +{rs['startedSeconds']:.2f}, caches synced +{rs['cachesSyncedSeconds']:.2f})")
ops = {}
for c in sync:
    k = (c['operation'], c['outcome']); ops[k] = ops.get(k, 0) + 1
print('calls in the restart sync:', ops)
ok = [c for c in sync if c['outcome'] == 'ok']
# observed and modelled time of each zone's batch (n-th successful call of the sync)
zone_at, zone_n = {}, {}
for n, c in enumerate(ok, 1):
    if c['operation'] == 'ChangeResourceRecordSets' and c['hostedZoneId'] not in zone_at:
        zone_at[c['hostedZoneId']], zone_n[c['hostedZoneId']] = t(c) + off, n
n_ok = len(ok)
first_w = min(zone_at.values()) - start
n_read = min(zone_n.values()) - 1
k = len(zone_at)
ws = sorted(zone_at.values())
spacing = (ws[-1] - ws[0]) / (k - 1)
origin = rs['originSeconds']
lead = start - origin
print(f"read phase: {n_read} successful calls in {first_w:.2f}s; batches: {k}, {spacing:.3f}s apart")
for r in (5.0, 3.75):
    t_read = max(0, n_read - burst) / r
    def blind(j): return lead + t_read + (j - 1) * 1.0 + 0.125
    # changes spread evenly over the k zones' batches, in random (Go map) order
    js = sorted(j for j in range(1, k + 1) for _ in range(7))
    p50, p95 = statistics.median([blind(j) for j in js]), blind(js[int(0.95 * len(js) + 0.999) - 1])
    m50, m95 = s['summary']['blindTime']['p50'], s['summary']['blindTime']['p95']
    print(f"R={r}: read {t_read:.2f}s (obs {first_w:.2f}s); model blind p50 {p50:.1f}s ({100*(m50-p50)/p50:+.0f} %), p95 {p95:.1f}s ({100*(m95-p95)/p95:+.0f} %)")
lat = [c['latencySeconds'] for c in s['changes'] if c.get('latencySeconds') is not None]
print(f"measured blind p50 {s['summary']['blindTime']['p50']}s p95 {s['summary']['blindTime']['p95']}s; changes {len(lat)}; lead {lead:.2f}s")
