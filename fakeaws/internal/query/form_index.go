package query

import "strconv"

// formIndex holds every dotted prefix of every key and, per list, its largest index and how many distinct
// indexes it has; the parse limits bound its size (MaxParams × MaxDepth prefixes of at most MaxKeyBytes).
type formIndex struct {
	prefixes map[string]struct{}
	lists    map[string]listInfo
	// gap is the first list element found missing or badly numbered ("" when every list is 1..n).
	gap string
}

type listInfo struct{ max, distinct int }

func (f *Form) indexed() *formIndex {
	if f.index == nil {
		f.index = buildIndex(f)
	}
	return f.index
}

func buildIndex(f *Form) *formIndex {
	ix := &formIndex{prefixes: make(map[string]struct{}, len(f.values)*2), lists: map[string]listInfo{}}
	for k := range f.values {
		start := 0
		for i := 0; i <= len(k); i++ {
			if i < len(k) && k[i] != '.' {
				continue
			}
			ix.add(k, start, i)
			start = i + 1
		}
	}
	for parent, li := range ix.lists {
		if li.max != li.distinct && ix.gap == "" {
			ix.gap = parent + ".1 to " + parent + "." + strconv.Itoa(li.max)
		}
	}
	return ix
}

// add records the prefix k[:end] whose last segment is k[start:end]; a numeric segment is a list index.
func (ix *formIndex) add(k string, start, end int) {
	p := k[:end]
	if _, seen := ix.prefixes[p]; seen {
		return
	}
	ix.prefixes[p] = struct{}{}
	seg := k[start:end]
	if start == 0 || seg == "" || seg[0] < '0' || seg[0] > '9' {
		return
	}
	n, err := strconv.Atoi(seg)
	if err != nil || n < 1 || seg[0] == '0' { // AWS numbers list members from 1, without leading zeros
		if ix.gap == "" {
			ix.gap = p
		}
		return
	}
	parent := k[:start-1]
	li := ix.lists[parent]
	li.max, li.distinct = max(li.max, n), li.distinct+1
	ix.lists[parent] = li
}

// CheckLists reports the first list that is not numbered 1, 2, ..., n: AWS refuses such a request with a
// validation error instead of reading the list up to the gap.
func (f *Form) CheckLists() error {
	if gap := f.indexed().gap; gap != "" {
		return formErrorf(FormInvalid, "The list at '%s' is not numbered contiguously from 1", gap)
	}
	return nil
}
