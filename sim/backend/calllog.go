package backend

import (
	"bufio"
	"encoding/json"
	"os"

	"github.com/restartsim/restartsim/fakeaws"
)

// WriteCallLog writes calls to path as JSON lines, the format of the in-process call log.
func WriteCallLog(path string, calls []fakeaws.Call) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for i := range calls {
		if err := enc.Encode(&calls[i]); err != nil {
			return err
		}
	}
	return w.Flush()
}
