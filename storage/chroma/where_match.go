package chroma

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// parseClause is a where clause's termScope key read back (nil when it
// is not one).
func parseClause(scope string) map[string]any {
	var w map[string]any
	dec := json.NewDecoder(strings.NewReader(scope))
	dec.UseNumber()
	if dec.Decode(&w) != nil {
		return nil
	}
	return w
}

// normalised is v in its JSON form, numbers as json.Number.
func normalised(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if dec.Decode(&out) != nil {
		return nil
	}
	return out
}

// clauseAdmits evaluates a where clause (as whereOf writes it: $and,
// $or, equality, $in and the four comparisons) against a record's
// metadata (as chromaMeta writes it), as Chroma would; known is false for
// a clause it does not understand. Both are in their JSON form (normalised,
// parseClause), so that a value written as an int64 meets a clause's
// number alike.
func clauseAdmits(w, m map[string]any) (admits, known bool) {
	all := true
	for key, v := range w {
		var ok, known bool
		switch key {
		case "$and", "$or":
			ok, known = combined(key == "$and", v, m)
		default:
			ok, known = fieldAdmits(m[key], v)
		}
		if !known {
			return false, false
		}
		all = all && ok
	}
	return all, true
}

func combined(and bool, v any, m map[string]any) (bool, bool) {
	subs, ok := v.([]any)
	if !ok {
		return false, false
	}
	result := and
	for _, s := range subs {
		sw, ok := s.(map[string]any)
		if !ok {
			return false, false
		}
		a, known := clauseAdmits(sw, m)
		if !known {
			return false, false
		}
		if and {
			result = result && a
		} else {
			result = result || a
		}
	}
	return result, true
}

// fieldAdmits reports whether a metadata value (nil when absent) meets a
// field's condition: a value (equality) or one operator.
func fieldAdmits(have, cond any) (bool, bool) {
	ops, isOp := cond.(map[string]any)
	if !isOp {
		return have != nil && compare(have, cond) == 0, true
	}
	if len(ops) != 1 {
		return false, false
	}
	for op, want := range ops {
		if have == nil {
			return false, op == "$in" || op == "$eq" || op == "$lt" || op == "$lte" || op == "$gt" || op == "$gte"
		}
		switch op {
		case "$eq":
			return compare(have, want) == 0, true
		case "$in":
			list, ok := want.([]any)
			if !ok {
				return false, false
			}
			for _, x := range list {
				if compare(have, x) == 0 {
					return true, true
				}
			}
			return false, true
		case "$lt", "$lte", "$gt", "$gte":
			c := compare(have, want)
			if c == incomparable {
				return false, true
			}
			return (op == "$lt" && c < 0) || (op == "$lte" && c <= 0) || (op == "$gt" && c > 0) || (op == "$gte" && c >= 0), true
		}
	}
	return false, false
}

const incomparable = 2

// compare orders two JSON values of the same kind (-1, 0, 1), or says
// they are incomparable (a string and a number: Chroma matches neither).
func compare(a, b any) int {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		if !ok {
			return incomparable
		}
		return cmpOrdered(x, y)
	case bool:
		y, ok := b.(bool)
		if !ok {
			return incomparable
		}
		if x == y {
			return 0
		}
		return incomparable
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return incomparable
		}
		// Integers exactly (a timestamp in nanoseconds does not fit a
		// float64), others as floats.
		xi, err1 := strconv.ParseInt(x.String(), 10, 64)
		yi, err2 := strconv.ParseInt(y.String(), 10, 64)
		if err1 == nil && err2 == nil {
			return cmpOrdered(xi, yi)
		}
		xf, err1 := x.Float64()
		yf, err2 := y.Float64()
		if err1 != nil || err2 != nil {
			return incomparable
		}
		return cmpOrdered(xf, yf)
	}
	return incomparable
}

func cmpOrdered[T int64 | float64 | string](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
