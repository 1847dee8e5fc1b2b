package results

import "encoding/json"

// UnmarshalJSON reads a restart's phases, including those of results written when the first AWS
// call was the first ELBv2 call, named firstReconcileSeconds.
func (ph *RestartPhases) UnmarshalJSON(data []byte) error {
	type plain RestartPhases
	var v struct {
		plain
		Legacy *float64 `json:"firstReconcileSeconds"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*ph = RestartPhases(v.plain)
	if ph.FirstAWSCallSeconds == nil && v.Legacy != nil {
		ph.FirstAWSCallSeconds, ph.FirstAWSCallService = v.Legacy, "elbv2"
	}
	return nil
}
