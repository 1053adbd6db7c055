package webhook

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// MaxURLBytes is the longest webhook URL accepted.
const MaxURLBytes = 2048

// Policy says which addresses a webhook may reach. The zero value is what
// production wants: public addresses only.
type Policy struct {
	// AllowPrivate lets webhooks reach loopback, private (RFC 1918, ULA)
	// and shared (100.64/10) addresses and localhost: for an operator whose
	// receivers live inside their own network, and for tests. Link-local
	// addresses (the cloud metadata service at 169.254.169.254 among them),
	// unspecified and multicast addresses stay refused even then: no
	// receiver lives there, and the metadata service hands out credentials.
	AllowPrivate bool
}

// CheckURL says why a webhook URL is refused by its text, nil when it is
// not: only http and https, a host, no user name or password (they would
// be sent with every request and show in logs), at most MaxURLBytes, and a
// literal IP address or localhost only as Allowed says. A name that
// resolves to a refused address passes here and is refused when dialed
// (Sender), since what a name resolves to can change after registration.
func (p Policy) CheckURL(raw string) error {
	if len(raw) > MaxURLBytes {
		return fmt.Errorf("the URL is longer than %d bytes", MaxURLBytes)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("not a URL")
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	default:
		return fmt.Errorf("only http and https URLs are allowed")
	}
	host := u.Hostname()
	switch {
	case host == "":
		return fmt.Errorf("the URL has no host")
	case u.User != nil:
		return fmt.Errorf("the URL must not carry a user name or password")
	case u.Fragment != "":
		return fmt.Errorf("the URL must not have a #fragment")
	}
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	if (name == "localhost" || strings.HasSuffix(name, ".localhost")) && !p.AllowPrivate {
		return fmt.Errorf("localhost is not allowed")
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return p.CheckAddr(ip)
	}
	return nil
}

// CheckAddr says why a webhook must not connect to ip, nil when it may.
// A zone is ignored (a zoned address matches no prefix, which would let
// fe80::1%eth0 through); IPv4 addresses written as IPv6 count as the IPv4
// address they carry: mapped (::ffff:127.0.0.1), NAT64 (64:ff9b::/96) and
// 6to4 (2002::/16), which a gateway would turn into that address.
func (p Policy) CheckAddr(ip netip.Addr) error {
	ip = ip.WithZone("").Unmap()
	if v4, ok := embeddedIPv4(ip); ok {
		if err := p.CheckAddr(v4); err != nil {
			return fmt.Errorf("%s carries %w", ip, err)
		}
	}
	for _, r := range refused {
		if r.prefix.Contains(ip) && !(p.AllowPrivate && r.private) {
			return fmt.Errorf("%s is %s", ip, r.what)
		}
	}
	return nil
}

// embeddedIPv4 returns the IPv4 address a NAT64 or 6to4 address carries.
func embeddedIPv4(ip netip.Addr) (netip.Addr, bool) {
	b := ip.As16()
	switch {
	case !ip.Is6():
		return netip.Addr{}, false
	case nat64.Contains(ip):
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case sixToFour.Contains(ip):
		return netip.AddrFrom4([4]byte(b[2:6])), true
	}
	return netip.Addr{}, false
}

var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
)

// refused lists the address ranges a webhook never reaches (private ones
// only unless allowed).
var refused = []struct {
	prefix  netip.Prefix
	what    string
	private bool // allowed by AllowPrivate
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "an unspecified address", false},
	{netip.MustParsePrefix("::/128"), "an unspecified address", false},
	{netip.MustParsePrefix("169.254.0.0/16"), "a link-local address", false},
	{netip.MustParsePrefix("fe80::/10"), "a link-local address", false},
	{netip.MustParsePrefix("224.0.0.0/4"), "a multicast address", false},
	{netip.MustParsePrefix("ff00::/8"), "a multicast address", false},
	{netip.MustParsePrefix("255.255.255.255/32"), "the broadcast address", false},
	{netip.MustParsePrefix("127.0.0.0/8"), "a loopback address", true},
	{netip.MustParsePrefix("::1/128"), "a loopback address", true},
	{netip.MustParsePrefix("10.0.0.0/8"), "a private address", true},
	{netip.MustParsePrefix("172.16.0.0/12"), "a private address", true},
	{netip.MustParsePrefix("192.168.0.0/16"), "a private address", true},
	{netip.MustParsePrefix("fc00::/7"), "a private address", true},
	{netip.MustParsePrefix("100.64.0.0/10"), "a shared (carrier-grade NAT) address", true},
}
