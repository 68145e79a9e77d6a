package inputfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// pseudoFS names the file systems whose "regular" files are the kernel
// talking (/proc/kmsg blocks, /proc/self/… changes as it is read, sysfs
// and tracefs files can block or never end).
var pseudoFS = map[int64]string{
	unix.PROC_SUPER_MAGIC:    "/proc (procfs)",
	unix.SYSFS_MAGIC:         "/sys (sysfs)",
	unix.DEBUGFS_MAGIC:       "debugfs",
	unix.TRACEFS_MAGIC:       "tracefs",
	unix.SECURITYFS_MAGIC:    "securityfs",
	unix.CGROUP_SUPER_MAGIC:  "cgroupfs",
	unix.CGROUP2_SUPER_MAGIC: "cgroup2fs",
	unix.BPF_FS_MAGIC:        "bpffs",
	0x62656570:               "configfs", // CONFIGFS_MAGIC
	unix.EFIVARFS_MAGIC:      "efivarfs",
	unix.PSTOREFS_MAGIC:      "pstore",
	0x65735543:               "fusectl", // FUSE_CTL_SUPER_MAGIC
}

// pseudo says why f, on a pseudo file system, is not read; "" when it may be.
func pseudo(f *os.File) string {
	var st unix.Statfs_t
	if err := unix.Fstatfs(int(f.Fd()), &st); err != nil {
		return ""
	}
	if name, ok := pseudoFS[int64(st.Type)]; ok {
		return "is a file of " + name + ", whose reads may block or never end"
	}
	return ""
}
