package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"
)

// Limits of one attempt.
const (
	// DefaultTimeout bounds an attempt from dialing to the end of the
	// answer's headers (and the connection alone, ConnectTimeout).
	DefaultTimeout = 10 * time.Second
	ConnectTimeout = 5 * time.Second
	// MaxAnswerBytes of the receiver's answer are read (so that the
	// connection can be reused) and thrown away; the rest is not read.
	MaxAnswerBytes = 64 << 10
)

// Sender posts deliveries. Its client refuses what Policy refuses at the
// moment it dials, on the address actually dialed, so that a name that
// resolves to 127.0.0.1 or to the metadata service is refused too (and one
// that changes what it resolves to after registration). It uses no proxy
// from the environment (a proxy would do the dialing) and follows no
// redirects: a 3xx answer is a failed attempt.
type Sender struct {
	policy Policy
	client *http.Client
	dialer *net.Dialer
	// lookup resolves a host name (tests put their own names in).
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
}

// NewSender returns a Sender under policy, whose attempts last at most
// timeout (DefaultTimeout when 0).
func NewSender(policy Policy, timeout time.Duration) *Sender {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	s := &Sender{policy: policy, lookup: func(ctx context.Context, host string) ([]netip.Addr, error) {
		return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	}}
	s.dialer = &net.Dialer{Timeout: ConnectTimeout, Control: func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return &RefusedError{fmt.Sprintf("cannot read the dialed address %q", address)}
		}
		if err := policy.CheckAddr(ap.Addr()); err != nil {
			return &RefusedError{err.Error()}
		}
		return nil
	}}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           s.dial,
		TLSHandshakeTimeout:   ConnectTimeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       90 * time.Second,
	}
	s.client = &http.Client{
		Transport:     transport,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return s
}

// dial resolves addr's host and dials its addresses in turn; the dialer's
// Control refuses each forbidden one as it is dialed.
func (s *Sender) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ips := []netip.Addr{}
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = append(ips, ip)
	} else if ips, err = s.lookup(ctx, host); err != nil {
		return nil, err
	}
	var first error
	for _, ip := range ips {
		conn, err := s.dialer.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
		if err == nil {
			return conn, nil
		}
		if first == nil {
			first = err
		}
	}
	if first == nil {
		first = fmt.Errorf("%s resolves to no address", host)
	}
	return nil, first
}

// RefusedError is an attempt refused before anything was sent: its URL or
// the address its host resolved to is one Policy refuses.
type RefusedError struct{ Reason string }

func (e *RefusedError) Error() string { return "refused: " + e.Reason }

// Result is what one attempt came to: the answer's status (0 when there
// was none), how long it took, and why it failed (nil for a 2xx answer).
type Result struct {
	Status  int
	Latency time.Duration
	Err     error
}

// OK reports whether the receiver took the delivery (a 2xx answer).
func (r Result) OK() bool { return r.Err == nil }

// Send posts d to target, signed with secret and stamped at now.
func (s *Sender) Send(ctx context.Context, target, secret string, d Delivery, now time.Time) Result {
	if err := s.policy.CheckURL(target); err != nil {
		return Result{Err: &RefusedError{err.Error()}}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(d.Body))
	if err != nil {
		return Result{Err: &RefusedError{"not a URL"}}
	}
	req.Header = Headers(secret, d, now)
	began := time.Now()
	resp, err := s.client.Do(req)
	if err != nil {
		return Result{Latency: time.Since(began), Err: cause(err)}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxAnswerBytes))
	_ = resp.Body.Close()
	r := Result{Status: resp.StatusCode, Latency: time.Since(began)}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		r.Err = fmt.Errorf("answered %d", resp.StatusCode)
	}
	return r
}

// cause shortens a failed request's error to what the delivery log shows:
// the refusal, a timeout, or the network error without the URL (which the
// log shows beside it).
func cause(err error) error {
	if refused, ok := errors.AsType[*RefusedError](err); ok {
		return refused
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return errors.New("timed out")
	}
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return ue.Err
	}
	return err
}
