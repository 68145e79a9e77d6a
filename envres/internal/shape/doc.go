// Package shape recognises, from a script's syntax alone, the shapes the
// walk (envres/interp) treats apart: a sourced file that only assigns and
// exports (IsEnvLike), a loop body that exports or evals what it reads
// (BodyLoads) and whether it assigns only names without a value
// (LoopFill), a loop over "${ARR[@]}" (ArrayParam), a word with a
// command substitution (HasCmdSubst) or an unquoted glob (UnquotedGlob),
// the parameters a word names (WordNames), a statement's here-document
// (Heredoc), and a word or node as written (WordText, NodeText). It
// evaluates nothing.
package shape
