//go:build !linux

package launcher

import "github.com/childproof/childproof/proc"

// Off Linux nothing launches: no tree has members, no process a marker.

func liveMembers(p proc.FS, rec *Record) []int { return nil }

func membersNote(pids []int) string { return "" }
