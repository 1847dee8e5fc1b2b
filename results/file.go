package results

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/restartsim/restartsim/internal/regularfile"

	"github.com/restartsim/restartsim/internal/outfile"
)

// Load reads and checks a results.json file (see Decode), at most MaxFileBytes of it.
func Load(path string) (*Results, error) {
	data, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Decode(data, path)
}

// ReadFile reads a results.json or timeseries.csv ("-": standard input) whole, refusing one larger than MaxFileBytes
// (a device such as /dev/zero never ends) without reading more than that.
func ReadFile(path string) ([]byte, error) {
	if path == "-" { // standard input (-f -)
		return ReadAll(os.Stdin, "<stdin>")
	}
	f, err := regularfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > MaxFileBytes {
		return nil, tooLarge(path)
	}
	return ReadAll(f, path)
}

// ReadAll reads r to its end as ReadFile does; name is used in errors.
func ReadAll(r io.Reader, name string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > MaxFileBytes {
		return nil, tooLarge(name)
	}
	return data, nil
}

func tooLarge(name string) error {
	return fmt.Errorf("%s: too large: more than %d MiB", name, MaxFileBytes>>20)
}

// Decode parses results.json content and checks it (see Validate); name is used in errors.
func Decode(data []byte, name string) (*Results, error) {
	if len(data) > MaxFileBytes {
		return nil, tooLarge(name)
	}
	var r Results
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if r.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("%s: schemaVersion %q, want %q", name, r.SchemaVersion, SchemaVersion)
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &r, nil
}

// Encode writes r as indented JSON.
func (r *Results) Encode(w io.Writer) error {
	r.SchemaVersion = SchemaVersion
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// Save writes r as indented JSON to path, whole or not at all.
func (r *Results) Save(path string) error {
	return outfile.Write(outfile.Disk{}, path, r.Encode)
}
