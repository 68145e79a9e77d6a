// Package sockdiag finds the TCP listening sockets on a port from the
// kernel's socket table: a NETLINK_INET_DIAG query filtered to the LISTEN
// state and the port in the kernel, for IPv4 and IPv6, with a parser for
// /proc/net/tcp{,6} as a fallback.
package sockdiag
