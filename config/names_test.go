package config

import "testing"

func TestClosest(t *testing.T) {
	for name, want := range map[string]string{
		"API_KY":          "API_KEY",
		"api_key":         "API_KEY", // names are upper case
		"LISTEN_ADRESS":   "LISTEN_ADDR",
		"MATRIX_PASSWROD": "MATRIX_PASSWORD",
		"COMPOSE_PROFILE": "",
	} {
		if got := Closest(name); got != want {
			t.Errorf("Closest(%q) = %q, want %q", name, got, want)
		}
	}
}
