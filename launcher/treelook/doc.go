// Package treelook makes the find loop's looks at a launched tree cheap
// while nothing changes: the tree's listing stands while its events say
// nothing happened, a look that finds the same members, execs and
// listeners on the declared ports as the last full look is not judged
// again, and the pause between looks grows with the wait. It knows no
// launch: package launcher decides what a full look finds.
package treelook
