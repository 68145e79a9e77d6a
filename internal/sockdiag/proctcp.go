package sockdiag

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ProcListeners is the fallback for kernels without sock_diag: it parses
// ROOT/net/tcp and ROOT/net/tcp6 (root "/proc" when empty) for LISTEN
// sockets on port (0: every port). It is ~100 times slower.
func ProcListeners(root string, port uint16) ([]Listener, error) {
	if root == "" {
		root = "/proc"
	}
	var out []Listener
	for _, f := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(filepath.Join(root, "net", f))
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return nil, err
		}
		ls, err := ParseProcNetTCP(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(root, "net", f), err)
		}
		for _, l := range ls {
			if port == 0 || l.Port == port {
				out = append(out, l)
			}
		}
	}
	return out, nil
}

// ParseProcNetTCP parses the text of /proc/net/tcp or /proc/net/tcp6 and
// returns its LISTEN sockets (state 0A). Errors name the 1-based line.
func ParseProcNetTCP(data []byte) ([]Listener, error) {
	var out []Listener
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 4096), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if line == 1 && len(f) > 0 && f[0] == "sl" {
			continue
		}
		if len(f) == 0 {
			continue
		}
		if len(f) < 10 {
			return out, fmt.Errorf("line %d: %d fields, want at least 10", line, len(f))
		}
		if f[3] != "0A" {
			continue
		}
		addr, port, err := parseHexAddr(f[1])
		if err != nil {
			return out, fmt.Errorf("line %d: local address: %w", line, err)
		}
		uid, err := strconv.ParseUint(f[7], 10, 32)
		if err != nil {
			return out, fmt.Errorf("line %d: uid: %w", line, err)
		}
		ino, err := strconv.ParseUint(f[9], 10, 64)
		if err != nil {
			return out, fmt.Errorf("line %d: inode: %w", line, err)
		}
		out = append(out, Listener{Addr: addr, Port: port, UID: uint32(uid), Inode: ino})
	}
	if err := sc.Err(); err != nil {
		return out, err
	}
	return out, nil
}

// parseHexAddr decodes "0100007F:1F90" (v4) or 32 hex digits ":PORT" (v6);
// the address is in host byte order per 32-bit word.
func parseHexAddr(s string) (netip.Addr, uint16, error) {
	a, p, ok := strings.Cut(s, ":")
	if !ok {
		return netip.Addr{}, 0, fmt.Errorf("%q: no port", s)
	}
	port, err := strconv.ParseUint(p, 16, 16)
	if err != nil {
		return netip.Addr{}, 0, fmt.Errorf("%q: port: %w", s, err)
	}
	raw, err := hex.DecodeString(a)
	if err != nil {
		return netip.Addr{}, 0, fmt.Errorf("%q: %w", s, err)
	}
	switch len(raw) {
	case 4:
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], binary.LittleEndian.Uint32(raw))
		return netip.AddrFrom4(b), uint16(port), nil
	case 16:
		var b [16]byte
		for i := 0; i < 16; i += 4 {
			binary.BigEndian.PutUint32(b[i:], binary.LittleEndian.Uint32(raw[i:]))
		}
		return netip.AddrFrom16(b), uint16(port), nil
	}
	return netip.Addr{}, 0, fmt.Errorf("%q: %d address bytes", s, len(raw))
}
