package marker_test

import (
	"fmt"

	"github.com/ada-chat/ada/core/marker"
)

// The chat loop shows what Feed returns and stops generating at the first
// Request; at the end of a stream without one it shows what Flush returns.
func ExampleParser() {
	p := marker.NewParser()
	for _, token := range []string{"Let me look", " that up. SPECIAL", `IST_REQUEST[web_search:{"query":`, `"go ]1.26"}] ignored`} {
		text, req := p.Feed(token)
		fmt.Printf("show %q\n", text)
		if req != nil {
			if req.Err != nil {
				fmt.Println("error result for the model:", req.Err)
				return
			}
			fmt.Printf("run %s with %s (rest %q)\n", req.Name, req.Args, p.Rest())
			return
		}
	}
	text, req := p.Flush()
	fmt.Printf("show %q, request %v\n", text, req)
	// Output:
	// show "Let me look"
	// show " that up. "
	// show ""
	// show ""
	// run web_search with {"query":"go ]1.26"} (rest " ignored")
}
