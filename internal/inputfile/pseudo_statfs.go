//go:build linux || darwin

package inputfile

import (
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// pseudoFS names Linux's file systems whose "regular" files are the kernel
// talking (/proc/kmsg blocks, /proc/self/… changes as it is read, sysfs
// and tracefs files can block or never end), by statfs magic number. The
// numbers are written out: darwin has no such constants, and it builds
// this file so that lint, check, import and export share one code path on
// the platforms they run on (cmd's TestPortableCommandsNoLinuxPackages).
var pseudoFS = map[int64]string{
	0x9fa0:     "/proc (procfs)", // PROC_SUPER_MAGIC
	0x62656572: "/sys (sysfs)",   // SYSFS_MAGIC
	0x64626720: "debugfs",        // DEBUGFS_MAGIC
	0x74726163: "tracefs",        // TRACEFS_MAGIC
	0x73636673: "securityfs",     // SECURITYFS_MAGIC
	0x27e0eb:   "cgroupfs",       // CGROUP_SUPER_MAGIC
	0x63677270: "cgroup2fs",      // CGROUP2_SUPER_MAGIC
	0xcafe4a11: "bpffs",          // BPF_FS_MAGIC
	0x62656570: "configfs",       // CONFIGFS_MAGIC
	0xde5e81e4: "efivarfs",       // EFIVARFS_MAGIC
	0x6165676c: "pstore",         // PSTOREFS_MAGIC
	0x65735543: "fusectl",        // FUSE_CTL_SUPER_MAGIC
}

// pseudo says why f, on a pseudo file system, is not read; "" when it may
// be. Only Linux has them: elsewhere the type check is all.
func pseudo(f *os.File) string {
	if runtime.GOOS != "linux" {
		return ""
	}
	var st unix.Statfs_t
	if err := unix.Fstatfs(int(f.Fd()), &st); err != nil {
		return ""
	}
	if name, ok := pseudoFS[int64(st.Type)]; ok {
		return "is a file of " + name + ", whose reads may block or never end"
	}
	return ""
}
