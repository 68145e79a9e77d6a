package launcher

import "time"

// memberWatch is what foreground supervision knows of the tree's members
// since the launch was verified: the images it has judged (by pid, start
// time and where its last exec put its environment: a member seen between
// its fork and its exec is judged again once it has exec'd), and when it
// last looked.
type memberWatch struct {
	seen   map[int]string
	last   time.Time
	warned map[int]bool
}
