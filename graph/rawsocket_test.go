package graph_test

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// rawSocket is a WebSocket client over a bare TCP connection, as an
// attacker's tool would be: it sends what it is told and answers nothing (no
// pong, no close frame), so what happens to the connection is the server's
// doing alone.
type rawSocket struct {
	conn net.Conn
	br   *bufio.Reader
}

// dialRaw upgrades a TCP connection to /query with subprotocol ("" for
// none) and returns the HTTP status of the answer; the socket is nil unless
// it is 101.
func dialRaw(t testing.TB, serverURL, subprotocol string) (*rawSocket, int, error) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(serverURL, "http://"), 5*time.Second)
	if err != nil {
		return nil, 0, err
	}
	key := make([]byte, 16)
	_, _ = rand.Read(key)
	req := "GET /query HTTP/1.1\r\nHost: " + strings.TrimPrefix(serverURL, "http://") +
		"\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: " +
		base64.StdEncoding.EncodeToString(key) + "\r\n"
	if subprotocol != "" {
		req += "Sec-WebSocket-Protocol: " + subprotocol + "\r\n"
	}
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, req+"\r\n"); err != nil {
		conn.Close()
		return nil, 0, err
	}
	br := bufio.NewReader(conn)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		conn.Close()
		return nil, 0, err
	}
	_ = conn.SetDeadline(time.Time{})
	if res.StatusCode != http.StatusSwitchingProtocols {
		conn.Close()
		return nil, res.StatusCode, nil
	}
	s := &rawSocket{conn: conn, br: br}
	t.Cleanup(func() { _ = conn.Close() })
	return s, res.StatusCode, nil
}

// sendText writes one masked text frame, as a client must.
func (s *rawSocket) sendText(text string) error {
	p := []byte(text)
	frame := []byte{0x81}
	switch {
	case len(p) < 126:
		frame = append(frame, 0x80|byte(len(p)))
	default:
		frame = append(frame, 0x80|126, byte(len(p)>>8), byte(len(p)))
	}
	mask := make([]byte, 4)
	_, _ = rand.Read(mask)
	frame = append(frame, mask...)
	for i, b := range p {
		frame = append(frame, b^mask[i%4])
	}
	_ = s.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_, err := s.conn.Write(frame)
	return err
}

// rawEnd is how a raw socket's connection ended.
type rawEnd struct {
	code   int      // of the server's close frame; 0 if none came
	reason string   // of the close frame
	texts  []string // text messages before it
	eof    bool     // the server closed the TCP connection
}

// readToEnd reads frames until the server closes the TCP connection, or
// until within has passed.
func (s *rawSocket) readToEnd(within time.Duration) rawEnd {
	var end rawEnd
	_ = s.conn.SetReadDeadline(time.Now().Add(within))
	for {
		op, payload, err := s.readFrame()
		if err != nil {
			end.eof = errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || isReset(err)
			return end
		}
		switch op {
		case 0x1:
			end.texts = append(end.texts, string(payload))
		case 0x8:
			if len(payload) >= 2 {
				end.code, end.reason = int(binary.BigEndian.Uint16(payload)), string(payload[2:])
			}
		}
	}
}

func isReset(err error) bool {
	return strings.Contains(err.Error(), "connection reset")
}

func (s *rawSocket) readFrame() (op byte, payload []byte, err error) {
	var h [2]byte
	if _, err := io.ReadFull(s.br, h[:]); err != nil {
		return 0, nil, err
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		if _, err := io.ReadFull(s.br, b[:]); err != nil {
			return 0, nil, err
		}
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		if _, err := io.ReadFull(s.br, b[:]); err != nil {
			return 0, nil, err
		}
		n = binary.BigEndian.Uint64(b[:])
	}
	if n > 1<<20 {
		return 0, nil, fmt.Errorf("a frame of %d bytes", n)
	}
	payload = make([]byte, n)
	_, err = io.ReadFull(s.br, payload)
	return h[0] & 0x0f, payload, err
}

// openFiles counts this process's open file descriptors.
func openFiles(t testing.TB) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count descriptors: %v", err)
	}
	return len(fds)
}
