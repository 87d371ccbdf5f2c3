package config

import "strings"

// Known reports whether name is one of Ada's settings.
func Known(name string) bool {
	for _, s := range table(new(Config)) {
		if s.name == name {
			return true
		}
	}
	return false
}

// Closest is the setting whose name is nearest to name (fewest single-letter
// edits, case aside), for the warning about a misspelt name in the settings file; "" when
// even the nearest needs more edits than a typo makes (a third of the name,
// at least 2), since naming it would only mislead.
func Closest(name string) string {
	best, bestDist := "", -1
	for _, s := range table(new(Config)) {
		if d := editDistance(strings.ToUpper(name), s.name); bestDist < 0 || d < bestDist {
			best, bestDist = s.name, d
		}
	}
	if bestDist > max(2, len(name)/3) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
