package inspect

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

	"github.com/childproof/childproof/schema"
)

// connectAddrs are where a readiness probe connects for a declared port:
// the declared address, or for an all-interfaces bind both loopbacks (a
// 0.0.0.0 socket answers only on 127.0.0.1, a v6-only :: only on ::1).
func connectAddrs(pt schema.Port) []string {
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
func ConnectAddr(pt schema.Port) string { return connectAddrs(pt)[0] }

// Probe runs one readiness probe per port within timeout: a GET of path
// (expecting 2xx), or a TCP connect when path is empty.
func Probe(ctx context.Context, ports []schema.Port, path string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for _, pt := range ports {
		var err error
		for _, addr := range connectAddrs(pt) {
			if err = probe(ctx, addr, path); err == nil {
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
func probe(ctx context.Context, addr, path string) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
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
	status, err := httpGet(ctx, c, addr, path)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	if code, _, _ := strings.Cut(status, " "); len(code) != 3 || code[0] != '2' {
		return fmt.Errorf("GET %s: %s", path, status)
	}
	return nil
}

// httpGet sends one HTTP/1.1 GET for path over c and returns the status
// of the answer ("200 OK"), reading at most 64 KiB of the body. It is a
// few lines instead of net/http, whose package initialisation (TLS, HTTP/2)
// would cost every childproof command a fraction of a millisecond.
func httpGet(ctx context.Context, c net.Conn, host, path string) (string, error) {
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
	io.Copy(io.Discard, io.LimitReader(br, 1<<16))
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
