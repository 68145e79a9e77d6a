package proctree

// CountWords is how EqualMatchesNote's note asks for the worker count
// (%d, the processes that match equally), in Go's words; the command
// says it in the spec's (worker { count = N }).
const CountWords = "set the worker count to %d"
