package config

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"strings"
)

// Public returns every non-secret setting by its environment name, with the
// effective (parsed and resolved) value: numbers, booleans, strings and
// string lists; durations in the unit of their name (seconds or days).
// Secrets are left out entirely, and URLs lose their userinfo. It is the
// "config" of /v1/healthz and the output of a --print-config.
func (c *Config) Public() map[string]any {
	m := make(map[string]any)
	for _, s := range table(c) {
		if !s.secret {
			m[s.name] = s.val.get()
		}
	}
	return m
}

// String, GoString, MarshalJSON and LogValue have value receivers, so that
// a copied Config is as safe to print, encode or log as a *Config.

// String prints the Public settings as NAME=value lines in table order, so
// that formatting a Config with %v or %+v never shows a secret.
func (c Config) String() string {
	var b strings.Builder
	for _, s := range table(&c) {
		if !s.secret {
			fmt.Fprintf(&b, "%s=%v\n", s.name, s.val.get())
		}
	}
	return b.String()
}

// GoString keeps %#v as safe as %v.
func (c Config) GoString() string { return "config.Config{\n" + c.String() + "}" }

// MarshalJSON encodes the Public settings, so json.Marshal of a *Config
// never shows a secret either.
func (c Config) MarshalJSON() ([]byte, error) { return json.Marshal(c.Public()) }

// LogValue logs the Public settings as a group, sorted by name.
func (c Config) LogValue() slog.Value {
	pub := c.Public()
	names := make([]string, 0, len(pub))
	for n := range pub {
		names = append(names, n)
	}
	sort.Strings(names)
	attrs := make([]slog.Attr, 0, len(names))
	for _, n := range names {
		attrs = append(attrs, slog.Any(n, pub[n]))
	}
	return slog.GroupValue(attrs...)
}
