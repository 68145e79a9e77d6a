// Package proccn listens to the kernel's process events through the proc
// connector (NETLINK_CONNECTOR, CN_IDX_PROC): every fork, exec and exit on
// the machine, as it happens. Listening needs CAP_NET_ADMIN on older
// kernels and the initial network namespace on all; callers keep polling
// until the listener has shown it hears their own processes.
package proccn
