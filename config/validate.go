package config

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Per-item and per-value checks used by the table. Each returns the broken
// rule only; the caller names the setting and (if not secret) the value.

func checkHostPort(s string) error {
	_, port, err := net.SplitHostPort(s)
	if err != nil {
		return errors.New("must be host:port, e.g. :7000 or 127.0.0.1:7000")
	}
	n, err := strconv.Atoi(port)
	switch {
	case err != nil:
		return errors.New("must be host:port with a numeric port, e.g. :7000 or 127.0.0.1:7000")
	case n < 0 || n > 65535:
		return errors.New("port out of range: must be 0 to 65535")
	}
	return nil
}

// checkUserID accepts a Matrix user id, @localpart:server.
func checkUserID(s string) error {
	local, server, ok := strings.Cut(strings.TrimPrefix(s, "@"), ":")
	if !strings.HasPrefix(s, "@") || !ok || local == "" || server == "" || hasSpaceOrControl(s) {
		return errors.New("must be a Matrix user id, e.g. @ada:example.org")
	}
	return nil
}

// checkRoom accepts a room id (!…) or a room alias (#…:server).
func checkRoom(s string) error {
	if (!strings.HasPrefix(s, "!") && !strings.HasPrefix(s, "#")) || len(s) < 2 || hasSpaceOrControl(s) {
		return errors.New("must be a room id (!…) or alias (#…:server)")
	}
	return nil
}

// checkUserPattern accepts a user id in which * matches any run of characters.
func checkUserPattern(s string) error {
	if !strings.HasPrefix(s, "@") || !strings.Contains(s, ":") || hasSpaceOrControl(s) {
		return errors.New("must be a user id pattern, e.g. @alice:example.org or @*:example.org")
	}
	return nil
}

// checkOrigin accepts a browser origin (scheme://host[:port], no path) or *.
func checkOrigin(s string) error {
	if s == "*" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") ||
		u.RawQuery != "" || u.User != nil || hasSpaceOrControl(s) {
		return errors.New("must be an origin such as https://chat.example.org (scheme and host, no path), or *")
	}
	return nil
}

// checkToken is for API keys and tokens sent in HTTP headers.
func checkToken(s string) error {
	if hasSpaceOrControl(s) {
		return errors.New("must not contain spaces or control characters")
	}
	return nil
}

// minAPIKey is the shortest API_KEY accepted: a short key is guessed
// from many addresses despite the per-address limit.
const minAPIKey = 16

// checkAPIKey is checkToken with a minimum length.
func checkAPIKey(s string) error {
	if err := checkToken(s); err != nil {
		return err
	}
	if n := utf8.RuneCountInString(s); n < minAPIKey {
		return fmt.Errorf("must be at least %d characters (it has %d), so that it cannot be guessed: e.g. openssl rand -hex 24", minAPIKey, n)
	}
	return nil
}

// parseNetwork reads an IP address or a CIDR range (TRUSTED_PROXIES,
// METRICS_ALLOWED_NETWORKS) as the prefix a client's address is matched
// against: a range masked, an address (IPv4-mapped ones unmapped) as the
// prefix of that address alone.
func parseNetwork(s string) (netip.Prefix, error) {
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.Masked(), nil
	}
	if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
		a = a.Unmap()
		return netip.PrefixFrom(a, a.BitLen()), nil
	}
	return netip.Prefix{}, errors.New("must be an IP address or a CIDR range, e.g. 127.0.0.1, ::1 or 10.0.0.0/8")
}

// checkSecretText is for passwords and recovery keys, which may hold spaces.
func checkSecretText(s string) error {
	if hasControl(s) {
		return errors.New("must not contain control characters")
	}
	return nil
}

func checkTessLang(s string) error {
	for _, lang := range strings.Split(s, "+") {
		if lang == "" || strings.IndexFunc(lang, func(r rune) bool {
			return !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		}) >= 0 {
			return errors.New("must be tesseract language codes joined by +, e.g. eng or eng+deu")
		}
	}
	return nil
}

// checkTimeZone accepts an IANA time zone name the binary knows (cmd
// embeds the zone database, so that the host's does not matter).
func checkTimeZone(s string) error {
	if _, err := time.LoadLocation(s); err != nil || s == "Local" || hasControl(s) {
		return errors.New("must be an IANA time zone name, e.g. Europe/Berlin or America/New_York")
	}
	return nil
}

func checkOneLine(s string) error {
	if hasControl(s) {
		return errors.New("must be one line of text")
	}
	return nil
}

// Default embedding models per EMBED_BACKEND, used when EMBED_MODEL is empty.
// Both give (or, for openai, are asked for) 768 dimensions.
var defaultEmbedModels = map[string]string{
	"hash":   "",
	"ollama": "nomic-embed-text",
	"openai": "text-embedding-3-small",
}

// resolve fills the settings whose default depends on another setting.
func (c *Config) resolve() {
	if c.EmbedModel == "" {
		c.EmbedModel = defaultEmbedModels[c.EmbedBackend]
	}
	if c.EmbedBaseURL == "" {
		c.EmbedBaseURL = c.LLMBaseURL
		// The LLM key goes only where the LLM requests go.
		if c.EmbedAPIKey == "" {
			c.EmbedAPIKey = c.LLMAPIKey
		}
	}
}

// check validates rules that span settings. A rule is skipped when one of
// the settings it reads already failed, so every message is about a real
// problem. Values are never echoed here: secrets may be involved.
func (c *Config) check(failed map[string]bool) []error {
	var errs []error
	rule := func(names []string, bad bool, msg string) {
		for _, n := range names {
			if failed[n] {
				return
			}
		}
		if bad {
			errs = append(errs, errors.New(msg))
		}
	}
	matrix := []string{"MATRIX_HOMESERVER", "MATRIX_USER_ID", "MATRIX_ACCESS_TOKEN", "MATRIX_PASSWORD"}
	hs := c.MatrixHomeserver != ""
	rule(matrix, hs && c.MatrixUserID == "",
		"MATRIX_USER_ID: required when MATRIX_HOMESERVER is set, e.g. @ada:example.org")
	rule(matrix, hs && c.MatrixAccessToken == "" && c.MatrixPassword == "",
		"MATRIX_ACCESS_TOKEN or MATRIX_PASSWORD: one is required when MATRIX_HOMESERVER is set")
	var orphans []string // Matrix settings given without a homeserver
	for _, m := range []struct{ name, value string }{
		{"MATRIX_USER_ID", c.MatrixUserID},
		{"MATRIX_ACCESS_TOKEN", c.MatrixAccessToken},
		{"MATRIX_PASSWORD", c.MatrixPassword},
		{"MATRIX_RECOVERY_KEY", c.MatrixRecoveryKey},
	} {
		if m.value != "" && !failed[m.name] {
			orphans = append(orphans, m.name)
		}
	}
	them := "them"
	if len(orphans) == 1 {
		them = "it"
	}
	rule([]string{"MATRIX_HOMESERVER"}, !hs && len(orphans) > 0,
		fmt.Sprintf("MATRIX_HOMESERVER: required by %s (leave %s empty to run without the Matrix bridge)",
			strings.Join(orphans, ", "), them))
	rule([]string{"MUSICPROVIDER_USER", "MUSICPROVIDER_TOKEN"},
		c.MusicProviderToken != "" && c.MusicProviderUser == "",
		"MUSICPROVIDER_USER: required when MUSICPROVIDER_TOKEN is set")
	rule([]string{"METRICS_TOKEN", "API_KEY"}, c.MetricsToken != "" && c.MetricsToken == c.APIKey,
		"METRICS_TOKEN: must differ from API_KEY: the scraper's credential must not unlock the memories")
	// Without a key only the Host check stands between Ada and the web
	// pages the user opens, and a page's fetch of 127.0.0.1 carries a
	// loopback Host: "*" would let any of them read the answers.
	rule([]string{"CORS_ORIGINS", "API_KEY"}, slices.Contains(c.CORSOrigins, "*") && c.APIKey == "",
		"CORS_ORIGINS: * needs API_KEY: without a key any web page the user opens could read, change and forget every memory through her browser; name the front-end's origin (e.g. https://chat.example.org) or set API_KEY")
	rule([]string{"VECTORDB_URL", "CHROMA_TOKEN"}, c.ChromaToken != "" && c.VectorDBURL == "",
		"VECTORDB_URL: required when CHROMA_TOKEN is set (the token is for that Chroma server)")
	return errs
}
