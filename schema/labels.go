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
// still lists its launches. A source over MaxFileSize lists none.
func LaunchLabels(src []byte, filename string) []string {
	if len(src) > MaxFileSize {
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
