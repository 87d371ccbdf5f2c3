package config

import (
	"reflect"
	"testing"
)

// env turns a map into a getenv.
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// merge returns a copy of base with over applied.
func merge(base, over map[string]string) map[string]string {
	m := make(map[string]string, len(base)+len(over))
	for k, v := range base {
		m[k] = v
	}
	for k, v := range over {
		m[k] = v
	}
	return m
}

// diffFields reports each field of Config that differs, by name, so a
// failure shows what broke without dumping the whole struct.
func diffFields(t *testing.T, got, want *Config) {
	t.Helper()
	g, w := reflect.ValueOf(got).Elem(), reflect.ValueOf(want).Elem()
	for i := range g.NumField() {
		if !reflect.DeepEqual(g.Field(i).Interface(), w.Field(i).Interface()) {
			t.Errorf("%s = %#v, want %#v", g.Type().Field(i).Name, g.Field(i).Interface(), w.Field(i).Interface())
		}
	}
}

func mustLoad(t *testing.T, m map[string]string) *Config {
	t.Helper()
	c, err := Load(env(m))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}
