// Package console writes what one or more launches show on a terminal:
// their workers' output lines (prefixed with the launch's name when
// several share the stream) and, while a launch waits for its worker, one
// live status line per launch, kept below the output and redrawn in place.
// On anything but a terminal it draws no status and no escape code: the
// output lines pass through as they are.
package console
