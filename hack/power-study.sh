#!/usr/bin/env bash
# Power study of the A/B gate: runs `restartsim gate -f scenarios/ci-gate.yaml` RUNS times per
# condition, with both sides on the same binary (bin/restartsim) and the condition's arguments on
# the candidate only (a test-only slowdown mutant, or none for an A/A run), and records each run's
# verdict in $OUT/summary.tsv: condition, run, gate exit code, TTFMR ratio of medians [95 %], the
# failed checks, wall seconds. Conditions alternate run by run, so the machine's load over the
# study weighs on all of them alike.
#
#   hack/power-study.sh RUNS 'aa:' 'start2x:--mutant=slow-start --mutant-delay=290ms --allow-mutants' ...
set -euo pipefail
runs=${1:?usage: hack/power-study.sh RUNS name:args ...}
shift
out=${OUT:-out/power}
scenario=${SCENARIO:-scenarios/ci-gate.yaml}
bin=${BIN:-bin/restartsim}
mkdir -p "$out"
[[ -f "$out/summary.tsv" ]] || printf 'condition\trun\texit\tttfmr_ratio\tfailed\twall_s\n' >"$out/summary.tsv"
first=${START:-1} # numbers the runs, so a later call adds runs instead of replacing them
for ((i = first; i < first + runs; i++)); do
	for cond in "$@"; do
		name=${cond%%:*}
		read -r -a args <<<"${cond#*:}"
		cargs=()
		for a in "${args[@]}"; do cargs+=(--candidate-arg="$a"); done
		dir="$out/$name/$i"
		rm -rf "$dir"
		mkdir -p "$dir"
		start=$(date +%s)
		rc=0
		"$bin" gate -f "$scenario" --out "$dir/run" --baseline-binary "$bin" --candidate-binary "$bin" \
			"${cargs[@]}" --baseline "${BASELINE:-scenarios/baselines/ci-gate.json}" --junit "$dir/junit.xml" \
			>"$dir/gate.txt" 2>"$dir/stderr.log" || rc=$?
		wall=$(($(date +%s) - start))
		ratio=$(awk -F'  +' '$1 == "ttfmr_seconds" {print $4}' "$dir/gate.txt")
		failed=$(grep -o 'failure message="[^ :]*' "$dir/junit.xml" 2>/dev/null | cut -d'"' -f2 | paste -sd, - || true)
		printf '%s\t%d\t%d\t%s\t%s\t%d\n' "$name" "$i" "$rc" "$ratio" "${failed:--}" "$wall" | tee -a "$out/summary.tsv"
		# The runs' etcd copies and logs are large; the verdicts and results stay.
		find "$dir/run" -mindepth 3 -maxdepth 3 -type d -name 'fleet-*' -exec rm -rf {} +
	done
done
