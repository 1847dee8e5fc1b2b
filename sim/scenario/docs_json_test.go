package scenario

import "encoding/json"

func jsonCompact(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}
