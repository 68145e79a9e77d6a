// Package script is a shell script as envres reads it, before it is
// walked: the file read with a bound (Read), refused when binary
// (BinaryAt) or nested too deep (CheckNesting), its dialect by its
// shebang (Dialect, Interpreter), parsed by mvdan.cc/sh (Parser), and the
// places in it that every finding names (Pos, ParseError, RebasePath,
// CommandFile, the argv it holds: QuoteArgv, ArgvIndex).
package script
