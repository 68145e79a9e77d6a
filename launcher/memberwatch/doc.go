// Package memberwatch tells foreground supervision which members of a
// launched tree are new since the launch was verified (a pid, or an
// image of it, not judged yet) and paces its looks by the tree's
// events. It knows no launch: package launcher judges the new members
// and says what a divergence means.
package memberwatch
