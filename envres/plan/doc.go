// Package plan holds what a launch script would launch, as envres/interp's
// walk finds it: the places where workers start (Start), the argv and
// exported environment they start with (Word, Part, EnvSetting), the
// commands run in the foreground (Command), and the Planner that collects
// them while the walk runs. Nothing here walks: the walk hands each start
// to the Planner, resolved.
package plan
