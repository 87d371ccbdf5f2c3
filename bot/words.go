package bot

import "fmt"

// plural is n with the word that goes with it: "1 memory", "2 memories"
// (issue 40 item 15: never "1 memories").
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
