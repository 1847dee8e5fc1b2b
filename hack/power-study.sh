#!/usr/bin/env bash
# Power study of the sequential A/B gate (docs/performance.md, "CI gate: power"). Both sides run one
# binary (bin/restartsim); a condition's arguments go to the candidate only (a test-only slowdown
# mutant, or none for A/A). LOAD=loaded runs a CPU hog of two busy loops beside every run (2 cores
# burnt, as on a shared CI runner); LOAD=quiet runs nothing beside it.
#
#   hack/power-study.sh pool N  name:args ...   one A/B run per condition of N + N runs, never stopped
#                                               early (ab.repeats = ab.maxRepeats = N): the pool the
#                                               gate's verdict rates are estimated from
#                                               (POOL=2, 3, ... adds a further pool; they are joined)
#   hack/power-study.sh gates RUNS name:args ...  RUNS real `restartsim gate` runs per condition
#                                               (the sequential gate as CI runs it), alternating
#                                               conditions run by run; verdicts in $OUT/$LOAD/gates.tsv,
#                                               and in $RECORD too when set (docs/power/gates.tsv keeps
#                                               every real gate run of the study, build by build)
#   go run ./hack/powerstats -dir $OUT [-record docs/power/gates.tsv]
#                                               the tables: replayed verdict rates and the real runs
#
# Conditions of the study:
#   'aa:' 's15:--mutant=slow-start --mutant-delay=285ms --allow-mutants'
#   's2:--mutant=slow-start --mutant-delay=570ms --allow-mutants' 's3:--mutant=slow-start --mutant-delay=1140ms --allow-mutants'
#   'e2:--mutant=slow-early-exit --mutant-delay=5ms --allow-mutants'
#   'x15:--mutant=slow-start --mutant-delay=133ms --allow-mutants' 'x2:--mutant=slow-start --mutant-delay=267ms --allow-mutants'
#   'y15:--mutant=slow-start --mutant-delay=195ms --allow-mutants' 'y2:--mutant=slow-start --mutant-delay=390ms --allow-mutants'
#   'z15:--mutant=slow-start --mutant-delay=450ms --allow-mutants' 'z2:--mutant=slow-start --mutant-delay=900ms --allow-mutants'
# A slow start's delay d adds d × timeScale (5) to TTFMR, so the ratio it makes depends on the quiet
# baseline's TTFMR on the machine that runs the study: ×k needs d = (k - 1) × TTFMR / 5. s15, s2 and s3
# were sized for a TTFMR of 2.8 s; x15 and x2 for the 1.33 s that later builds and machines measured;
# y15 and y2 for the 1.96 s of the builds without the controller's client-side Kubernetes limit (the
# median of the A/A gates' runs in the record: check it before trusting a cell's name). Beside two
# busy loops the baseline's TTFMR is about 4.5 s, so there y15 is only ×1.2, which no gate is asked to
# catch (its minimum effect is +25 %): z15 and z2 are ×1.5 and ×2 of that loaded TTFMR, the loaded
# study's cells.
set -euo pipefail
mode=${1:?usage: hack/power-study.sh pool|gates N name:args ...}
n=${2:?usage: hack/power-study.sh pool|gates N name:args ...}
shift 2
load=${LOAD:-quiet}
out=${OUT:-out/power}/$load
scenario=${SCENARIO:-scenarios/ci-gate.yaml}
bin=${BIN:-bin/restartsim}
mkdir -p "$out"

hogs=()
stop_hogs() { for p in "${hogs[@]}"; do kill "$p" 2>/dev/null || true; done; hogs=(); }
trap stop_hogs EXIT
start_hogs() {
	[[ $load == loaded ]] || return 0
	for _ in 1 2; do
		(while :; do :; done) &
		hogs+=($!)
	done
}

# gate runs one `restartsim gate` of scenario file $1 into directory $2 with condition $3; sets
# rc (its exit code) and wall (seconds).
gate() {
	local file=$1 dir=$2 cond=$3 start
	rc=0
	local -a args cargs=()
	read -r -a args <<<"${cond#*:}"
	for a in "${args[@]}"; do cargs+=(--candidate-arg="$a"); done
	rm -rf "$dir"
	mkdir -p "$dir"
	start=$(date +%s)
	start_hogs
	"$bin" gate -f "$file" --out "$dir/run" --baseline-binary "$bin" --candidate-binary "$bin" "${cargs[@]}" \
		--baseline "${BASELINE:-scenarios/baselines/ci-gate.json}" --junit "$dir/junit.xml" >"$dir/gate.txt" 2>"$dir/stderr.log" || rc=$?
	stop_hogs
	# The runs' etcd copies and logs are large; the verdicts and results stay.
	find "$dir/run" -mindepth 3 -maxdepth 3 -type d -name 'fleet-*' -exec rm -rf {} +
	wall=$(($(date +%s) - start))
}

# summary prints a gate run's runs per side, saturated runs, why sampling stopped, the build and
# when it finished (tab-separated; "-" where the gate wrote no results).
summary() {
	local r
	r=$(find "$1/run" -name results.json -print -quit 2>/dev/null)
	if [[ -z $r ]]; then
		printf -- '-\t-\t-\t-\t%s' "$(date -u +%FT%TZ)"
		return
	fi
	jq -r '[(.ab.runSeconds | length) / 2,
		([.strategies[].runs[]?.machine.saturated | select(. == true)] | length),
		(.ab.stopped // "-"), (.ab.candidateBuild.version // "-"), (now | todate)] | @tsv' "$r"
}

case $mode in
pool)
	file=$out/pool-scenario.yaml
	# One look at N: every run is kept, whatever the verdict.
	sed -E -e "s/^(  repeats:) [0-9]+/\1 $n/" -e "s/^(  maxRepeats:) [0-9]+/\1 $n/" -e "s/^(  budget:) .*/\1 10h/" "$scenario" >"$file"
	for cond in "$@"; do
		name=${cond%%:*}
		# POOL names a further pool of the condition (pool-2, ...): powerstats joins them.
		gate "$file" "$out/$name/pool${POOL:+-$POOL}" "$cond"
		printf '%s\tpool\t%d+%d runs\texit %s\t%ss\n' "$name" "$n" "$n" "$rc" "$wall"
	done
	;;
gates)
	command -v jq >/dev/null || { echo "power-study: gates needs jq, to read each gate's results.json (apt install jq)" >&2; exit 2; }
	columns='condition\trun\texit\twall_s\truns_per_side\tsaturated_runs\tstopped\tbuild\tfinished\n'
	[[ -f "$out/gates.tsv" ]] || printf "$columns" >"$out/gates.tsv"
	[[ -z ${RECORD:-} || -f $RECORD ]] || printf "load\\t$columns" >"$RECORD"
	first=${START:-1} # numbers the runs, so a later call adds runs instead of replacing them
	for ((i = first; i < first + n; i++)); do
		for cond in "$@"; do
			name=${cond%%:*}
			gate "$scenario" "$out/$name/gate-$i" "$cond"
			row=$(printf '%s\t%d\t%s\t%s\t%s' "$name" "$i" "$rc" "$wall" "$(summary "$out/$name/gate-$i")")
			echo "$row" | tee -a "$out/gates.tsv"
			[[ -z ${RECORD:-} ]] || printf '%s\t%s\n' "$load" "$row" >>"$RECORD"
		done
	done
	;;
*)
	echo "usage: hack/power-study.sh pool|gates N name:args ..." >&2
	exit 2
	;;
esac
