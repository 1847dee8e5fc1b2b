package machine

import (
	"fmt"
	"strings"
)

// runTicks is the CPU time (user + system, clock ticks) of every process whose command line names
// dir: the processes one run started with its own directory in their arguments (API server, etcd,
// controllers). Runs side by side in one harness share its process tree, so their own processes
// are told apart by the directory each run owns.
func (p proc) runTicks(dir string) (map[int]int, error) {
	procs, err := p.fs.AllProcs()
	if err != nil {
		return nil, fmt.Errorf("machine: processes: %w", err)
	}
	out := map[int]int{}
	for _, pr := range procs {
		args, err := pr.CmdLine()
		if err != nil || !names(args, dir) {
			continue
		}
		if st, err := pr.Stat(); err == nil {
			out[st.PID] = int(st.UTime + st.STime)
		}
	}
	return out, nil
}

func names(args []string, dir string) bool {
	for _, a := range args {
		if strings.Contains(a, dir+"/") || strings.HasSuffix(a, dir) { // not repeat-10 for repeat-1
			return true
		}
	}
	return false
}

// runCPUSeconds is the CPU time the run's processes used between two readings: a process seen at
// both counts its difference, one started since counts whole. A process that exited in between (a
// crashed controller) is missed after the first reading.
func runCPUSeconds(from, to map[int]int) float64 {
	sum := 0
	for pid, t := range to {
		sum += t - from[pid]
	}
	return float64(max(0, sum)) / userHZ
}
