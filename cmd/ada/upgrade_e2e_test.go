package main

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	sqlite_vec "github.com/asg017/sqlite-vec-go-bindings/cgo"

	"github.com/ada-chat/ada/storage"
)

// oldDatabase writes DATA_DIR/ada.db as a binary of schema version
// `version` left it: the shipped migrations up to that one, applied as the
// files say.
func oldDatabase(t *testing.T, dataDir string, version int) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "storage", "migrations", "*.sql"))
	if err != nil || len(files) < version {
		t.Fatalf("migrations: %v %v", files, err)
	}
	sqlite_vec.Auto()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dataDir, "ada.db")+"?_foreign_keys=on")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for i, f := range files[:version] { // Glob sorts: 0001_… first
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(string(text)); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if _, err := db.Exec("PRAGMA user_version = " + strconv.Itoa(i+1)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestUpgradeSaysWhatItDid: starting on an older database logs the schema
// versions it migrated from and to; a new database and one already current
// log no migration; a database of a newer binary is refused with the way
// back (the backup taken before the upgrade).
func TestUpgradeSaysWhatItDid(t *testing.T) {
	latest := storage.LatestSchemaVersion()
	env := testEnv(t, nil)
	oldDatabase(t, env["DATA_DIR"], latest-1)
	want := "migrated schema " + strconv.Itoa(latest-1) + " → " + strconv.Itoa(latest)

	ada := startAda(t, "serve", env)
	ada.stop()
	if logs := ada.logs.String(); !strings.Contains(logs, want) {
		t.Errorf("the start log does not say %q:\n%s", want, logs)
	}
	again := startAda(t, "serve", env)
	again.stop()
	if logs := again.logs.String(); strings.Contains(logs, "migrated schema") {
		t.Errorf("a current database logged a migration:\n%s", logs)
	}
	if out, err := runCmd(context.Background(), env, nil, "migrate"); err != nil || !strings.Contains(out, "schema version "+strconv.Itoa(latest)) {
		t.Errorf("ada migrate on a current database: %v %q", err, out)
	}

	// A newer binary's database.
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(env["DATA_DIR"], "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA user_version = " + strconv.Itoa(latest+1)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = runCmd(context.Background(), env, nil, "migrate")
	if err == nil || !strings.Contains(err.Error(), "restore the backup taken before the upgrade") {
		t.Errorf("a newer database: %v, want the refusal with the way back", err)
	}
}
