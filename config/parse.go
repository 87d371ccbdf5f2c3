package config

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// value is the typed target of one setting. set parses a trimmed raw value
// (empty only when the setting's default is empty) and returns the broken
// rule, "must be ...", without the value: the caller adds name and value.
type value interface {
	set(raw string) error
	// get returns the value as shown by Public (never for secrets).
	get() any
	// rule describes the allowed values for .env.example, or "".
	rule() string
}

// echoer is implemented by values whose raw text must be redacted before it
// appears in an error message.
type echoer interface {
	echo(raw string) string
}

type boolVal struct{ p *bool }

func (v boolVal) set(raw string) error {
	switch strings.ToLower(raw) {
	case "true", "1", "yes", "on":
		*v.p = true
	case "false", "0", "no", "off":
		*v.p = false
	default:
		return errors.New("must be true or false (also 1/0, yes/no, on/off)")
	}
	return nil
}
func (v boolVal) get() any     { return *v.p }
func (v boolVal) rule() string { return "true or false" }

// intVal is an integer within min..max, inclusive.
type intVal[T int | int64] struct {
	p        *T
	min, max T
}

func (v intVal[T]) set(raw string) error {
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n < int64(v.min) || n > int64(v.max) {
		return fmt.Errorf("must be %s", v.rule())
	}
	*v.p = T(n)
	return nil
}
func (v intVal[T]) get() any     { return *v.p }
func (v intVal[T]) rule() string { return fmt.Sprintf("%d..%d", v.min, v.max) }

// secondsVal is a whole number of seconds within min..max, kept as a Duration.
type secondsVal struct {
	p        *time.Duration
	min, max int
}

func (v secondsVal) set(raw string) error {
	var n int
	if err := (intVal[int]{p: &n, min: v.min, max: v.max}).set(raw); err != nil {
		return err
	}
	*v.p = time.Duration(n) * time.Second
	return nil
}
func (v secondsVal) get() any     { return int(*v.p / time.Second) }
func (v secondsVal) rule() string { return fmt.Sprintf("%d..%d seconds", v.min, v.max) }

// floatVal is a decimal number within min..max, inclusive.
type floatVal struct {
	p        *float64
	min, max float64
}

func (v floatVal) set(raw string) error {
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil || math.IsNaN(f) || f < v.min || f > v.max {
		return fmt.Errorf("must be %s", v.rule())
	}
	*v.p = f
	return nil
}
func (v floatVal) get() any { return *v.p }
func (v floatVal) rule() string {
	return fmtFloat(v.min) + ".." + fmtFloat(v.max)
}

// daysVal is a positive number of days, decimals allowed, up to max, kept as
// a Duration.
type daysVal struct {
	p   *time.Duration
	max float64
}

func (v daysVal) set(raw string) error {
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil || math.IsNaN(f) || f <= 0 || f > v.max {
		return fmt.Errorf("must be %s", v.rule())
	}
	*v.p = time.Duration(f * float64(24*time.Hour))
	return nil
}
func (v daysVal) get() any { return v.p.Hours() / 24 }
func (v daysVal) rule() string {
	return "above 0 and at most " + fmtFloat(v.max) + " days"
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// stringVal is free text; check, if set, validates a non-empty value.
type stringVal struct {
	p     *string
	check func(string) error
	desc  string // rule for .env.example
}

func (v stringVal) set(raw string) error {
	if raw != "" && v.check != nil {
		if err := v.check(raw); err != nil {
			return err
		}
	}
	*v.p = raw
	return nil
}
func (v stringVal) get() any     { return *v.p }
func (v stringVal) rule() string { return v.desc }

// enumVal is one of a fixed set of lower-case words, matched case-insensitively.
type enumVal struct {
	p      *string
	values []string
}

func (v enumVal) set(raw string) error {
	low := strings.ToLower(raw)
	for _, ok := range v.values {
		if low == ok {
			*v.p = low
			return nil
		}
	}
	return fmt.Errorf("must be one of %s", strings.Join(v.values, ", "))
}
func (v enumVal) get() any     { return *v.p }
func (v enumVal) rule() string { return strings.Join(v.values, ", ") }

// levelVal is a log level: DEBUG, INFO, WARNING (or WARN), ERROR.
type levelVal struct{ p *slog.Level }

var levels = []struct {
	name  string
	level slog.Level
}{
	{"DEBUG", slog.LevelDebug},
	{"INFO", slog.LevelInfo},
	{"WARNING", slog.LevelWarn},
	{"WARN", slog.LevelWarn},
	{"ERROR", slog.LevelError},
}

func (v levelVal) set(raw string) error {
	for _, l := range levels {
		if strings.EqualFold(raw, l.name) {
			*v.p = l.level
			return nil
		}
	}
	return errors.New("must be one of DEBUG, INFO, WARNING (or WARN), ERROR")
}
func (v levelVal) get() any {
	for _, l := range levels {
		if l.level == *v.p {
			return l.name
		}
	}
	return v.p.String()
}
func (v levelVal) rule() string { return "DEBUG, INFO, WARNING (or WARN), ERROR" }

// urlVal is an optional http or https URL, kept without a trailing slash.
// Its userinfo is a secret: Public and error messages never show it.
type urlVal struct{ p *string }

func (v urlVal) set(raw string) error {
	if raw == "" {
		*v.p = ""
		return nil
	}
	// Never wrap url.Parse's error: it quotes the whole URL, userinfo included.
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("must be an http or https URL, e.g. https://host.example:8080")
	}
	*v.p = strings.TrimRight(raw, "/")
	return nil
}
func (v urlVal) get() any { return stripUserinfo(*v.p) }
func (v urlVal) rule() string {
	return "http or https URL"
}
func (v urlVal) echo(raw string) string { return redactUserinfo(raw) }

// stripUserinfo removes the userinfo of a valid URL.
func stripUserinfo(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return redactUserinfo(s)
	}
	if u.User == nil {
		return s
	}
	u.User = nil
	return u.String()
}

// redactUserinfo hides everything before the last "@" of text that failed to
// parse as a URL, keeping the scheme, so no credential is echoed.
func redactUserinfo(raw string) string {
	at := strings.LastIndex(raw, "@")
	if at < 0 {
		return raw
	}
	prefix := ""
	if i := strings.Index(raw, "://"); i >= 0 && i < at {
		prefix = raw[:i+3]
	}
	return prefix + "***@" + raw[at+1:]
}

// listVal is a comma-separated list; items are trimmed and empty items
// dropped. check, if set, validates each item.
type listVal struct {
	p     *[]string
	check func(string) error
	desc  string
}

func (v listVal) set(raw string) error {
	items := []string{}
	for _, item := range listItems(raw) {
		if v.check != nil {
			if err := v.check(item); err != nil {
				return fmt.Errorf("item %q %v", item, err)
			}
		}
		items = append(items, item)
	}
	*v.p = items
	return nil
}
func (v listVal) get() any     { return append([]string{}, *v.p...) }
func (v listVal) rule() string { return v.desc }

// listItems are the non-empty items of a comma-separated setting, trimmed.
func listItems(raw string) []string {
	var items []string
	for _, item := range strings.Split(raw, ",") {
		if item = strings.TrimSpace(item); item != "" {
			items = append(items, item)
		}
	}
	return items
}

// netsVal is a list of IP addresses and CIDR ranges, parsed once here
// into the prefixes clients are matched against (parseNetwork).
type netsVal struct {
	p *[]netip.Prefix
}

func (v netsVal) set(raw string) error {
	nets := []netip.Prefix{}
	for _, item := range listItems(raw) {
		n, err := parseNetwork(item)
		if err != nil {
			return fmt.Errorf("item %q %v", item, err)
		}
		nets = append(nets, n)
	}
	*v.p = nets
	return nil
}

// get shows an address as the address, a range as the range.
func (v netsVal) get() any {
	out := make([]string, 0, len(*v.p))
	for _, n := range *v.p {
		if n.IsSingleIP() {
			out = append(out, n.Addr().String())
		} else {
			out = append(out, n.String())
		}
	}
	return out
}
func (v netsVal) rule() string { return "list of IPs or CIDRs" }

// hasSpaceOrControl reports whether s holds whitespace or control characters.
func hasSpaceOrControl(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}) >= 0
}

func hasControl(s string) bool {
	return strings.IndexFunc(s, unicode.IsControl) >= 0
}
