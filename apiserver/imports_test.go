package apiserver

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsStayDownhill keeps the rule of doc.go: the adapter and its
// client see core's types, never the packages cmd/ada picks behind them.
func TestImportsStayDownhill(t *testing.T) {
	banned := []string{"github.com/ada-chat/ada/bot", "github.com/ada-chat/ada/storage", "github.com/ada-chat/ada/core/specialists"}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("*/*.go")
	for _, name := range append(files, more...) {
		if strings.HasSuffix(name, "_test.go") {
			continue // tests run the real parts behind the adapter
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, b := range banned {
				if path == b || strings.HasPrefix(path, b+"/") {
					t.Errorf("%s imports %s", name, path)
				}
			}
		}
	}
}
