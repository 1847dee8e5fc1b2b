package objects

import "fmt"

// fieldPath joins a field name to a path: .name for plain names, [name] for keys that are not (an annotation
// key holds dots and slashes), as the scenario parser writes map keys.
func fieldPath(path, name string) string {
	if plainName(name) {
		if path == "" {
			return name
		}
		return path + "." + name
	}
	return path + "[" + name + "]"
}

// indexPath appends a list index to a path.
func indexPath(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

func plainName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		case i > 0 && (r == '-' || r >= '0' && r <= '9'):
		default:
			return false
		}
	}
	return true
}
