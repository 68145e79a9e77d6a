package schema

import (
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// LaunchLabels returns the labels of the launch blocks of the spec source
// src (named filename), in order and once each, read from its syntax
// alone: nothing is evaluated or validated, so a spec that would not load
// here (an env() unset, an unclosed block)
// still lists its launches. A source over MaxFileSize, or one that nests
// or chains deeper than Load parses (MaxNesting, MaxExprDepth), lists
// none: HCL's parser would overflow the stack on it, and completion reads
// every .hcl file of a directory.
func LaunchLabels(src []byte, filename string) []string {
	if len(src) > MaxFileSize {
		return nil
	}
	if _, _, deep := tooDeep(src); deep {
		return nil
	}
	if _, _, _, deep := exprTooDeep(src); deep {
		return nil
	}
	f, _ := hclsyntax.ParseConfig(src, filename, hcl.Pos{Line: 1, Column: 1})
	if f == nil {
		return nil
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return nil
	}
	var out []string
	for _, b := range body.Blocks {
		if b.Type == "launch" && len(b.Labels) == 1 && !slices.Contains(out, b.Labels[0]) {
			out = append(out, b.Labels[0])
		}
	}
	return out
}
