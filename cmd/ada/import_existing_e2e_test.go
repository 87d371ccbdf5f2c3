package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	chromastore "github.com/ada-chat/ada/storage/chroma"
	"github.com/ada-chat/ada/storage/storagetest"
)

// TestMigrateStoreBackIntoTheOldCopy (issue 41) moves a SQLite store to
// Chroma, forgets and corrects memories there, and moves back into the
// DATA_DIR that still holds the older copy, as an operator following the
// README would. The copy back is refused without --into-existing and
// changes nothing; with it, the SQLite store ends with exactly Chroma's
// state, history included: the forgotten memory is not live again, and the
// words of its history are gone.
func TestMigrateStoreBackIntoTheOldCopy(t *testing.T) {
	chroma := storagetest.StartChroma(t)
	env := testEnv(t, nil)
	ada := startAda(t, "serve", env)
	var kept, gone memoryRecord
	ada.call("POST", "/v1/memory", map[string]any{"text": "Sam's bike is a blue Peugeot", "tags": []string{"bike"}}, &kept)
	ada.call("POST", "/v1/memory", map[string]any{"text": "The spare key is under the green pot", "tags": []string{"key"}}, &gone)
	ada.stop()

	ctx := context.Background()
	env["VECTORDB_URL"] = chroma.URL
	if out, err := runCmd(ctx, env, nil, "migrate-store", "--to", "chroma"); err != nil {
		t.Fatalf("migrate-store --to chroma: %v\n%s", err, out)
	}
	onChroma := startAda(t, "serve", env)
	if st := onChroma.call("PATCH", "/v1/memory/"+kept.ID, map[string]any{"text": "Sam's bike is a red Peugeot"}, nil); st != http.StatusOK {
		t.Fatalf("PATCH on Chroma: %d", st)
	}
	if st := onChroma.call("DELETE", "/v1/memory/"+gone.ID, nil, nil); st != http.StatusNoContent && st != http.StatusOK {
		t.Fatalf("DELETE on Chroma: %d", st)
	}
	onChroma.stop()
	store, err := chromastore.Open(ctx, chroma.URL)
	if err != nil {
		t.Fatal(err)
	}
	want := readContents(t, store, gone.ID)
	old := readStore(t, env, gone.ID)

	out, err := runCmd(ctx, env, nil, "migrate-store", "--to", "sqlite")
	if err == nil || !strings.Contains(err.Error(), "--into-existing") {
		t.Fatalf("migrate-store --to sqlite into the old copy: %v\n%s, want it refused, naming --into-existing", err, out)
	}
	sameStore(t, old, readStore(t, env, gone.ID), true) // untouched

	if out, err := runCmd(ctx, env, nil, "migrate-store", "--into-existing", "--to", "sqlite"); err != nil {
		t.Fatalf("migrate-store --into-existing --to sqlite: %v\n%s", err, out)
	}
	sameStore(t, want, renormalised(t, want, readStore(t, env, gone.ID)), true)

	delete(env, "VECTORDB_URL")
	onSQLite := startAda(t, "serve", env)
	if st := onSQLite.call("GET", "/v1/memory/"+gone.ID, nil, nil); st != http.StatusNotFound {
		t.Errorf("the memory forgotten on Chroma, back on SQLite: %d, want 404", st)
	}
	var found memoryList
	onSQLite.call("GET", "/v1/memory?search=spare+key+green+pot", nil, &found)
	for _, m := range found.Items {
		if m.ID == gone.ID {
			t.Errorf("the memory forgotten on Chroma is found by search on SQLite")
		}
	}

	// And to Chroma again, after a memory was forgotten on SQLite.
	onSQLite.call("DELETE", "/v1/memory/"+kept.ID, nil, nil)
	onSQLite.stop()
	want = readStore(t, env, gone.ID, kept.ID)
	env["VECTORDB_URL"] = chroma.URL
	if out, err := runCmd(ctx, env, nil, "migrate-store", "--to", "chroma"); err == nil || !strings.Contains(err.Error(), "--into-existing") {
		t.Fatalf("migrate-store --to chroma into the older copy: %v\n%s, want it refused", err, out)
	}
	if out, err := runCmd(ctx, env, nil, "migrate-store", "--into-existing", "--to", "chroma"); err != nil {
		t.Fatalf("migrate-store --into-existing --to chroma: %v\n%s", err, out)
	}
	sameStore(t, want, renormalised(t, want, readContents(t, store, gone.ID, kept.ID)), true)
	if out, _ := runCmd(ctx, env, nil, "migrate-store", "--help"); !strings.Contains(out, "--into-existing") {
		t.Errorf("migrate-store --help does not document --into-existing:\n%s", out)
	}
}

// TestImportIntoAStoreThatIsNotEmpty (issue 41): an export taken after a
// memory was forgotten, imported into a store holding an older import, is
// refused without --into-existing (nothing is written), and with it the
// store ends with exactly the export's state. A store holding only part of
// the export (an interrupted import) is continued without the flag
// (TestImportResumesAfterInterruption).
func TestImportIntoAStoreThatIsNotEmpty(t *testing.T) {
	src := testEnv(t, nil)
	ada := startAda(t, "serve", src)
	var kept, gone memoryRecord
	ada.call("POST", "/v1/memory", map[string]any{"text": "The boiler is serviced in March"}, &kept)
	ada.call("POST", "/v1/memory", map[string]any{"text": "Lena's door code is 4471"}, &gone)
	ada.stop()
	older := exportTo(t, src)
	dst := testEnv(t, nil)
	ctx := context.Background()
	if out, err := runCmd(ctx, dst, nil, "import", older); err != nil {
		t.Fatalf("the first import: %v\n%s", err, out)
	}

	ada = startAda(t, "serve", src)
	ada.call("PATCH", "/v1/memory/"+kept.ID, map[string]any{"importance": 5}, nil)
	ada.call("DELETE", "/v1/memory/"+gone.ID, nil, nil)
	ada.stop()
	newer := exportTo(t, src)

	before := readStore(t, dst, gone.ID)
	out, err := runCmd(ctx, dst, nil, "import", newer)
	if err == nil || !strings.Contains(err.Error(), "--into-existing") {
		t.Fatalf("import into the older import: %v\n%s, want it refused, naming --into-existing", err, out)
	}
	sameStore(t, before, readStore(t, dst, gone.ID), true)
	if out, err := runCmd(ctx, dst, nil, "import", "--into-existing", newer); err != nil {
		t.Fatalf("import --into-existing: %v\n%s", err, out)
	}
	sameStore(t, readStore(t, src, gone.ID), readStore(t, dst, gone.ID), true)
	if out, _ := runCmd(ctx, dst, nil, "import", "--help"); !strings.Contains(out, "--into-existing") {
		t.Errorf("import --help does not document --into-existing:\n%s", out)
	}
	// From standard input the export cannot be compared first: refused.
	data, _ := os.ReadFile(older)
	if _, err := runCmd(ctx, dst, strings.NewReader(string(data)), "import", "--into-existing", "-"); err == nil || !strings.Contains(err.Error(), "name the export FILE") {
		t.Errorf("import from standard input into a store that is not empty: %v", err)
	}
}

// TestImportRefusesAShortExport (issue 41): a file cut short at a line's
// end reads as valid lines, but holds fewer records than its header counts:
// the import fails and writes nothing. From standard input, where it cannot
// be read first, the import fails at its end.
func TestImportRefusesAShortExport(t *testing.T) {
	lines := exportedLines(t, 5)
	short := strings.Join(lines[:4], "") // the header and 3 of 5 documents, no history
	file := writeLines(t, lines[:4]...)
	dst := testEnv(t, nil)
	out, err := runCmd(context.Background(), dst, nil, "import", file)
	if err == nil || !strings.Contains(err.Error(), "incomplete") || !strings.Contains(err.Error(), "nothing was imported") {
		t.Fatalf("import of a short file: %v\n%s, want it refused", err, out)
	}
	if got := readStore(t, dst); len(got.docs) != 0 {
		t.Errorf("the short file's import wrote %d documents, want none", len(got.docs))
	}

	out, err = runCmd(context.Background(), testEnv(t, nil), strings.NewReader(short), "import", "-")
	if err == nil || !strings.Contains(err.Error(), "3 of 5 documents and 0 of 5 history entries") {
		t.Fatalf("import of a short standard input: %v\n%s, want an error counting what was read", err, out)
	}
}

// TestImportOfAFileWithAnInvalidLine: the count made of a FILE before
// anything is written reads lines for their kind only, so a line only the
// import's checks refuse (here a vector not of unit length) is still
// caught where the count cannot decide. Into a store that is not empty,
// the export cannot be compared: refused, nothing written. A short file
// holding such a line is not refused whole: the import names the line,
// as for a file of the right length.
func TestImportOfAFileWithAnInvalidLine(t *testing.T) {
	lines := exportedLines(t, 5)
	bad := regexp.MustCompile(`"embedding":\[[^]]*\]`).ReplaceAllString(lines[3], `"embedding":[`+strings.Repeat("0.5,", 767)+`0.5]`)
	ctx := context.Background()

	dst := testEnv(t, nil)
	seedExportable(t, dst, 1) // a store that is not empty, and not part of the export
	before := readStore(t, dst)
	out, err := runCmd(ctx, dst, nil, "import", "--into-existing", writeLines(t, append(append([]string{}, lines[:3]...), append([]string{bad}, lines[4:]...)...)...))
	if err == nil || !strings.Contains(err.Error(), "not a valid record") || !strings.Contains(err.Error(), "nothing was imported") {
		t.Fatalf("import of a file with an invalid line into a store that is not empty: %v\n%s, want it refused", err, out)
	}
	sameStore(t, before, readStore(t, dst), true)
	// A header's counts are not trusted with memory.
	huge := regexp.MustCompile(`"documents":\d+`).ReplaceAllString(lines[0], `"documents":1099511627776`)
	out, err = runCmd(ctx, dst, nil, "import", "--into-existing", writeLines(t, huge, "{\n"))
	if err == nil || !strings.Contains(err.Error(), "not a valid record") {
		t.Fatalf("import of a file whose header counts 2^40 documents: %v\n%s, want it refused for its invalid line", err, out)
	}

	dst = testEnv(t, nil)
	out, err = runCmd(ctx, dst, nil, "import", writeLines(t, lines[0], lines[1], lines[2], bad))
	if err == nil || !strings.Contains(err.Error(), "line 4: ") || !strings.Contains(err.Error(), "unit length") {
		t.Fatalf("import of a short file with an invalid line: %v\n%s, want the line named", err, out)
	}
	if got := readStore(t, dst); len(got.docs) != 2 {
		t.Errorf("%d documents imported, want the 2 before the invalid line", len(got.docs))
	}
}

// exportedLines is the export of a store of n memories (seedExportable),
// line by line, each with its newline.
func exportedLines(t *testing.T, n int) []string {
	src := testEnv(t, nil)
	seedExportable(t, src, n)
	data, err := os.ReadFile(exportTo(t, src))
	if err != nil {
		t.Fatal(err)
	}
	return strings.SplitAfter(string(data), "\n")
}

// writeLines writes lines into a file of their own and names it.
func writeLines(t *testing.T, lines ...string) string {
	file := filepath.Join(t.TempDir(), "export.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}
