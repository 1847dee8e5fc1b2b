package machine

import (
	"fmt"

	"github.com/prometheus/procfs"
)

// cpuTimes is the machine's cumulative CPU time, all CPUs together, in seconds.
type cpuTimes struct {
	total, steal, iowait float64
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
