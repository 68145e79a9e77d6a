// Package construct finds, in a script's syntax alone, the statements a
// spec replaces or cannot express: readiness loops, kill cleanups and
// conditionals (Find). envres/interp's Planner reports them for the
// scripts a walk read.
package construct
