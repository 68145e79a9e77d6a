package probe

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/childproof/childproof/spec"
)

// connectAddrs are where a readiness probe connects for a declared port:
// the declared address, or for an all-interfaces bind both loopbacks (a
// 0.0.0.0 socket answers only on 127.0.0.1, a v6-only :: only on ::1).
func connectAddrs(pt spec.Port) []string {
	a, err := netip.ParseAddr(pt.PortAddress())
	if err != nil {
		a = netip.MustParseAddr("127.0.0.1")
	}
	port := strconv.Itoa(pt.Number)
	if a.IsUnspecified() {
		return []string{net.JoinHostPort("127.0.0.1", port), net.JoinHostPort("::1", port)}
	}
	return []string{net.JoinHostPort(a.String(), port)}
}

// ConnectAddr is the first address a readiness probe connects to for pt.
func ConnectAddr(pt spec.Port) string { return connectAddrs(pt)[0] }

// Ready runs one readiness probe per port within timeout: a GET of path
// (expecting 2xx), or a TCP connect when path is empty.
func Ready(ctx context.Context, ports []spec.Port, path string, timeout time.Duration) error {
	return ReadyMatch(ctx, ports, path, timeout, nil)
}

// ReadyMatch is Ready with the answer to the GET judged by match (its
// status code and the first 64 KiB of its body, de-chunked) instead of
// expecting 2xx; nil match is Ready. A *StatusError match returns is
// returned as it is, with the path and status line filled in.
func ReadyMatch(ctx context.Context, ports []spec.Port, path string, timeout time.Duration, match func(code int, body []byte) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for _, pt := range ports {
		var err error
		for _, addr := range connectAddrs(pt) {
			if err = probe(ctx, addr, path, match); err == nil {
				break
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// probe does one readiness check: GET path expecting 2xx, else a TCP connect.
func probe(ctx context.Context, addr, path string, match func(int, []byte) error) error {
	c, err := dial(ctx, addr)
	if err != nil {
		if path == "" {
			return fmt.Errorf("connect %s: %w", addr, err)
		}
		return fmt.Errorf("GET %s: %w", path, err)
	}
	defer c.Close()
	if path == "" {
		return nil
	}
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	var body *[]byte
	if match != nil {
		body = new([]byte)
	}
	status, err := httpGet(ctx, c, addr, path, body)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	if match != nil {
		code, _ := strconv.Atoi(status[:3])
		if err := match(code, *body); err != nil {
			if se, ok := err.(*StatusError); ok {
				se.Path, se.Status = path, status
				return se
			}
			return fmt.Errorf("GET %s: %w", path, err)
		}
		return nil
	}
	if code, _, _ := strings.Cut(status, " "); len(code) != 3 || code[0] != '2' {
		n, _ := strconv.Atoi(code)
		return &StatusError{Path: path, Status: status, Code: n}
	}
	return nil
}

// StatusError is a readiness GET answered with a status other than 2xx. It
// is plain data, safe for concurrent use while no one changes it.
type StatusError struct {
	Path   string // "/healthz"
	Status string // "404 Not Found"
	Code   int    // 404
}

func (e *StatusError) Error() string { return "GET " + e.Path + ": " + e.Status }

// httpGet sends one HTTP/1.1 GET for path over c and returns the status
// of the answer ("200 OK"), reading at most 64 KiB of the body (kept in
// *body, de-chunked, when body is not nil). It is a
// few lines instead of net/http, whose package initialisation (TLS, HTTP/2)
// would cost every childproof command a fraction of a millisecond.
func httpGet(ctx context.Context, c net.Conn, host, path string, body *[]byte) (string, error) {
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	req := "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: childproof\r\nAccept: */*\r\nConnection: close\r\n\r\n"
	if _, err := io.WriteString(c, req); err != nil {
		return "", ctxErr(ctx, err)
	}
	br := bufio.NewReaderSize(c, 1024)
	line, err := br.ReadSlice('\n')
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return "", ctxErr(ctx, err)
	}
	proto, status, ok := strings.Cut(strings.TrimRight(string(line), "\r\n"), " ")
	if !ok || !strings.HasPrefix(proto, "HTTP/1.") || len(status) < 3 {
		return "", fmt.Errorf("malformed HTTP response %q", strings.TrimRight(string(line), "\r\n"))
	}
	if _, err := strconv.Atoi(status[:3]); err != nil || (len(status) > 3 && status[3] != ' ') {
		return "", fmt.Errorf("malformed HTTP status %q", status)
	}
	if body == nil {
		discardBody(br, 1<<16)
		return status, nil
	}
	b, err := readBody(br, 1<<16)
	if err != nil {
		return "", ctxErr(ctx, err)
	}
	*body = b
	return status, nil
}

// ctxErr prefers the context's error when it ended the exchange.
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return context.DeadlineExceeded
	}
	return err
}

// discardBody reads what is left of an HTTP/1.1 answer (up to limit
// bytes), so that the connection is closed with nothing unread (a close
// with unread bytes resets it, which the server may log). An answer with a
// Content-Length is read to its end, not to the connection's: the
// server's close, which the answer does not wait for, comes after it,
// often in a packet of its own and a wake-up of the prober more. Any
// other answer is read to the connection's end.
func discardBody(br *bufio.Reader, limit int64) {
	length, chunked, err := readHeaders(br)
	if err == nil && length >= 0 && !chunked && length <= limit {
		io.CopyN(io.Discard, br, length)
		return
	}
	io.Copy(io.Discard, io.LimitReader(br, limit))
}

// readHeaders reads an HTTP/1.1 answer's headers, returning its
// Content-Length (-1: none) and whether it is chunked.
func readHeaders(br *bufio.Reader) (length int64, chunked bool, err error) {
	length = -1
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return -1, false, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			return length, chunked, nil
		}
		k, v, _ := strings.Cut(line, ":")
		v = strings.TrimSpace(v)
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "content-length":
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				length = n
			}
		case "transfer-encoding":
			chunked = strings.Contains(strings.ToLower(v), "chunked")
		}
	}
}

// readBody reads an HTTP/1.1 answer's headers and up to limit bytes of its
// body: Content-Length, chunked, or to the end of the connection.
func readBody(br *bufio.Reader, limit int64) ([]byte, error) {
	length, chunked, err := readHeaders(br)
	if err != nil {
		return nil, err
	}
	var r io.Reader = br
	switch {
	case chunked:
		var out []byte
		for int64(len(out)) < limit {
			line, err := br.ReadString('\n')
			if err != nil {
				return out, nil
			}
			size, _, _ := strings.Cut(strings.TrimSpace(line), ";")
			n, err := strconv.ParseInt(size, 16, 64)
			if err != nil || n == 0 {
				break
			}
			b := make([]byte, min(n, limit-int64(len(out))))
			m, _ := io.ReadFull(br, b)
			out = append(out, b[:m]...)
			if int64(m) < n {
				break
			}
			br.ReadString('\n')
		}
		return out, nil
	case length >= 0:
		r = io.LimitReader(br, min(length, limit))
	default:
		r = io.LimitReader(br, limit)
	}
	b, err := io.ReadAll(r)
	if err != nil && len(b) == 0 && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b, nil
}
