package main

import "testing"

func TestBadEnvLine(t *testing.T) {
	cases := []struct {
		name, src string
		line      int
		setting   string
	}{
		{"unclosed quote", "A=1\nMATRIX_PASSWORD=\"secret\nB=2\n", 2, "MATRIX_PASSWORD"},
		{"after a value over two lines", "# c\nA=\"one\ntwo\"\n\nexport B='open\n", 5, "B"},
		{"yaml style", "A: 1\nB: \"x\n", 2, "B"},
		{"a pasted secret", "A=1\nhunter2 !!\n", 2, ""},
		{"a bad name", "A=1\nMY-KEY=1\n", 2, ""},
	}
	for _, tc := range cases {
		line, name := badEnvLine([]byte(tc.src))
		if line != tc.line || name != tc.setting {
			t.Errorf("%s: line %d, setting %q; want %d, %q", tc.name, line, name, tc.line, tc.setting)
		}
	}
}
