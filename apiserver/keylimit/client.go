package keylimit

import (
	"net"
	"net/netip"
	"strings"
)

// Networks are IP addresses and CIDR ranges: the proxies named in
// TRUSTED_PROXIES, the scrapers of METRICS_ALLOWED_NETWORKS (config parses
// them, masked, an address as the prefix of that address alone).
type Networks []netip.Prefix

// Contains reports whether a is in one of the networks.
func (t Networks) Contains(a netip.Addr) bool {
	for _, p := range t {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Client is the count a request's failures go into. remote is the peer's
// address (host:port); header reads a request header. The proxy headers
// (X-Real-IP, else X-Forwarded-For) are believed only when the peer is a
// proxy the operator named in TRUSTED_PROXIES: from anyone else they are
// the client's own words, and a guesser would name a fresh address with
// each guess. Behind a trusted proxy that sets neither, every client
// shares the proxy's count.
func (l *Limiter) Client(remote string, header func(string) string) string {
	a, ok := l.Addr(remote, header)
	if !ok {
		if h, _, err := net.SplitHostPort(remote); err == nil {
			return h
		}
		return remote
	}
	return network(a)
}

// Addr is the client's address: the peer's, or the one a proxy named in
// TRUSTED_PROXIES gives (see Client). ok is false for a peer that is not
// an IP address (a Unix socket).
func (l *Limiter) Addr(remote string, header func(string) string) (a netip.Addr, ok bool) {
	a, ok = peer(remote)
	if !ok {
		return a, false
	}
	if l.trusted.Contains(a) {
		if real, ok := l.forwarded(header); ok {
			a = real
		}
	}
	return a, true
}

// forwarded is the client a trusted proxy names: X-Real-IP, which a proxy
// sets whole (deploy/nginx does), else the nearest address of
// X-Forwarded-For that is not itself a trusted proxy (the ones further
// left were written by the client, who can write anything).
func (l *Limiter) forwarded(header func(string) string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(strings.TrimSpace(header("X-Real-IP"))); err == nil {
		return a.WithZone("").Unmap(), true
	}
	hops := strings.Split(header("X-Forwarded-For"), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return netip.Addr{}, false
		}
		a = a.WithZone("").Unmap()
		if !l.trusted.Contains(a) || i == 0 {
			return a, true
		}
	}
	return netip.Addr{}, false
}

// network is what one client controls: an IPv4 address, or an IPv6 /64,
// which a single host is commonly given whole.
func network(a netip.Addr) string {
	if a.Is4() {
		return a.String()
	}
	return netip.PrefixFrom(a, 64).Masked().String()
}

// wideOf is the wider network of a client: an IPv4 /16 or an IPv6 /32,
// about what one provider hands one customer at most; "" for a client
// that is not an address.
func wideOf(client string) string {
	if p, err := netip.ParsePrefix(client); err == nil {
		return netip.PrefixFrom(p.Addr(), 32).Masked().String()
	}
	if a, err := netip.ParseAddr(client); err == nil && a.Is4() {
		return netip.PrefixFrom(a, 16).Masked().String()
	}
	return ""
}

// Scheme is the scheme the client used: https over TLS to Ada itself, else
// what X-Forwarded-Proto says when the peer is a proxy named in
// TRUSTED_PROXIES (the proxy ended the client's TLS), else http. From
// anyone else the header is the client's own word and is ignored.
func (l *Limiter) Scheme(remote string, tls bool, header func(string) string) string {
	if tls {
		return "https"
	}
	if a, ok := peer(remote); !ok || !l.trusted.Contains(a) {
		return "http"
	}
	// A chain of proxies appends: the first value is the client's hop.
	first, _, _ := strings.Cut(header("X-Forwarded-Proto"), ",")
	if strings.EqualFold(strings.TrimSpace(first), "https") {
		return "https"
	}
	return "http"
}

// peer is the address of remote (host:port, or a bare host), without zone
// and IPv4-mapped form; ok is false when it is not an IP address.
func peer(remote string) (netip.Addr, bool) {
	host := remote
	if h, _, err := net.SplitHostPort(remote); err == nil {
		host = h
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.WithZone("").Unmap(), true
}
