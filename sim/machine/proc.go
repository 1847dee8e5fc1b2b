package machine

import (
	"fmt"

	"github.com/prometheus/procfs"
)

// cpuTimes is the machine's cumulative CPU time, all CPUs together, in seconds: all of it, the
// part spent running something (busy), stolen by the hypervisor, and idle waiting for I/O.
type cpuTimes struct {
	total, busy, steal, iowait float64
}

// proc reads the kernel's figures from a proc file system (/proc, or a copy in tests).
type proc struct{ fs procfs.FS }

func newProc(root string) (proc, error) {
	fs, err := procfs.NewFS(root)
	if err != nil {
		return proc{}, fmt.Errorf("machine: %w", err)
	}
	return proc{fs: fs}, nil
}

// load1 is the 1-minute load average.
func (p proc) load1() (float64, error) {
	l, err := p.fs.LoadAvg()
	if err != nil {
		return 0, fmt.Errorf("machine: loadavg: %w", err)
	}
	return l.Load1, nil
}

// cpu is the CPU time so far. Guest time is already part of user time, so it is not added.
func (p proc) cpu() (cpuTimes, error) {
	st, err := p.fs.Stat()
	if err != nil {
		return cpuTimes{}, fmt.Errorf("machine: stat: %w", err)
	}
	c := st.CPUTotal
	return cpuTimes{
		total:  c.User + c.Nice + c.System + c.Idle + c.Iowait + c.IRQ + c.SoftIRQ + c.Steal,
		busy:   c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ,
		steal:  c.Steal,
		iowait: c.Iowait,
	}, nil
}

// fractions are steal's and iowait's shares of the CPU time between two readings (zeros when no
// time passed).
func fractions(from, to cpuTimes) (steal, iowait float64) {
	d := to.total - from.total
	if d <= 0 {
		return 0, 0
	}
	return max(0, to.steal-from.steal) / d, max(0, to.iowait-from.iowait) / d
}

// userHZ is the unit of /proc/<pid>/stat's times: clock ticks, 100 a second on Linux.
const userHZ = 100

// treeCPU is the CPU time, in seconds, of process root and every process descended from it, with
// the time of descendants that already exited and were waited for (the kernel adds it to their
// parent's cutime and cstime). Processes that vanish while the tree is read are skipped.
func (p proc) treeCPU(root int) (float64, error) {
	procs, err := p.fs.AllProcs()
	if err != nil {
		return 0, fmt.Errorf("machine: processes: %w", err)
	}
	children := map[int][]int{}
	ticks := map[int]int{}
	for _, pr := range procs {
		st, err := pr.Stat()
		if err != nil {
			continue
		}
		children[st.PPID] = append(children[st.PPID], st.PID)
		ticks[st.PID] = int(st.UTime+st.STime) + st.CUTime + st.CSTime
	}
	if _, ok := ticks[root]; !ok {
		return 0, fmt.Errorf("machine: process %d not found", root)
	}
	sum := 0
	for queue := []int{root}; len(queue) > 0; queue = queue[1:] {
		sum += ticks[queue[0]]
		queue = append(queue, children[queue[0]]...)
	}
	return float64(sum) / userHZ, nil
}

// otherShare is the share of the CPUs' time between two readings that processes outside the run's
// tree used (zero when no time passed).
func otherShare(from, to cpuTimes, treeFrom, treeTo float64) float64 {
	d := to.total - from.total
	if d <= 0 {
		return 0
	}
	return min(1, max(0, (to.busy-from.busy)-(treeTo-treeFrom))/d)
}

// busyShare is the share of the CPUs' time between two readings that anything ran (zero when no
// time passed).
func busyShare(from, to cpuTimes) float64 {
	d := to.total - from.total
	if d <= 0 {
		return 0
	}
	return min(1, max(0, to.busy-from.busy)/d)
}
