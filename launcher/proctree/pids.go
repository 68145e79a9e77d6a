package proctree

import (
	"strconv"
	"strings"
)

// JoinPids lists pids as a message shows them ("12, 13").
func JoinPids(pids []int) string {
	s := make([]string, len(pids))
	for i, p := range pids {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, ", ")
}
