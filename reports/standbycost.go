package reports

import (
	"fmt"
	"strings"

	"github.com/restartsim/restartsim/results"
)

// standbyRow is what running a strategy's controller cost besides its blind time: its reads and
// Lease writes on the API server, and the memory and CPU of its standbys and leader until the
// first restart's stop.
type standbyRow struct {
	Strategy                          string
	Lists, Watches, Gets, LeaseWrites string
	Leader, Standbys                  string
}

func standbyRows(r *results.Results) []standbyRow {
	var rows []standbyRow
	for _, s := range r.Strategies {
		l := s.Summary.APILoad
		var at []results.InstanceAtStop
		if s.Restart != nil {
			at = s.Restart.AtStop
		}
		if l == nil && len(at) == 0 {
			continue
		}
		row := standbyRow{Strategy: s.Name, Lists: "–", Watches: "–", Gets: "–", LeaseWrites: "–", Leader: "–", Standbys: "–"}
		if l != nil {
			row.Lists, row.Watches, row.Gets, row.LeaseWrites = fmt.Sprint(l.Lists), fmt.Sprint(l.Watches), fmt.Sprint(l.Gets), fmt.Sprint(l.LeaseWrites)
		}
		var standbys []string
		for _, p := range at {
			cell := instanceCost(p)
			if p.Role == results.RoleLeader {
				row.Leader = cell
			} else {
				standbys = append(standbys, cell)
			}
		}
		if len(standbys) > 0 {
			row.Standbys = strings.Join(standbys, "; ")
		}
		rows = append(rows, row)
	}
	return rows
}

// instanceCost is one process's memory and CPU until the stop, the CPU also as average cores.
func instanceCost(p results.InstanceAtStop) string {
	cell := fmt.Sprintf("replica %d: %.0f MiB RSS, %.2f s CPU in %.0f s", p.Replica, float64(p.RSSBytes)/(1<<20), p.CPUSeconds, p.UpSeconds)
	if p.UpSeconds > 0 {
		cell += fmt.Sprintf(" (%.3f cores)", p.CPUSeconds/p.UpSeconds)
	}
	return cell
}
