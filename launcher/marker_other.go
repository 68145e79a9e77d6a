//go:build !linux

package launcher

import "github.com/childproof/childproof/proc"

// Off Linux nothing launches: no tree has members, no process a marker.

func trustedCgroup(dir, name string) string { return "" }

func cgroupRemoved(dir, name string) bool { return false }

func liveMembers(p proc.FS, rec *Record) []int { return nil }

func markerPids(p proc.FS, markers ...string) map[string][]int { return nil }

func membersNote(pids []int) string { return "" }
