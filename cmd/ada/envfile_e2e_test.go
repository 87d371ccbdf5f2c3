package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeEnvFile(t *testing.T, body string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "ada.env")
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestNamedEnvFileMissingIsAnError: ADA_ENV_FILE naming a file that is not
// there would start Ada on defaults with every secret gone.
func TestNamedEnvFileMissingIsAnError(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "ada.env")
	_, err := runArgs(t, testEnv(t, map[string]string{"ADA_ENV_FILE": missing}), "migrate")
	if err == nil || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "ADA_ENV_FILE") {
		t.Fatalf("err = %v: want an error naming %s and ADA_ENV_FILE", err, missing)
	}
}

// TestLenientEnvFileFormsAreRefused: only NAME=value; the error names the
// line and never shows its text.
func TestLenientEnvFileFormsAreRefused(t *testing.T) {
	const secret = "abcdef0123456789abcd"
	for _, line := range []string{
		"API_KEY: " + secret,
		"LISTEN_ADDR 127.0.0.1:7031 " + secret,
		"export API_KEY=" + secret,
		"API_KEY = " + secret,
	} {
		file := writeEnvFile(t, "# settings\nAI_NAME=Ada\nNOTE=\"two\nlines # not a setting\"\n\n"+line+"\n")
		_, err := runArgs(t, testEnv(t, map[string]string{"ADA_ENV_FILE": file}), "migrate")
		if err == nil || !strings.Contains(err.Error(), "line 6") || strings.Contains(err.Error(), secret) {
			t.Errorf("%q: err = %v; want an error naming line 6 without the value", line, err)
		}
	}
}

// TestEnvFileIsLogged: the start log names the file and how many settings it
// gave, and warns about an unknown name with the setting it was meant to be.
func TestEnvFileIsLogged(t *testing.T) {
	file := writeEnvFile(t, "# settings\nAI_NAME=Ada\nAPI_KY=abcdef0123456789abcd\nUSER_NAME='x'\n")
	ada := startAda(t, "serve", testEnv(t, map[string]string{"ADA_ENV_FILE": file}))
	if got := logLines(ada, "settings file read", "file="+file, "settings=3"); len(got) != 1 {
		t.Errorf("no log line naming the file and its 3 settings:\n%s", ada.logs.String())
	}
	warn := logLines(ada, "level=WARN", "unknown setting", "name=API_KY", "closest=API_KEY", "line=3")
	if len(warn) != 1 || strings.Contains(ada.logs.String(), "abcdef0123456789abcd") {
		t.Errorf("want one warning naming API_KY, line 3 and API_KEY, without the value:\n%s", ada.logs.String())
	}
}
