package schema

import "github.com/hashicorp/hcl/v2"

var logSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "keep"}}}

// logBlock decodes log { keep = N }: how many earlier logs of the launch
// are kept when a new launch starts its log (0 keeps none).
func (l *loader) logBlock(blk *hcl.Block, s *launchState) {
	c, d := blk.Body.Content(logSchema)
	l.diags = append(l.diags, d...)
	if c == nil {
		return
	}
	a, ok := c.Attributes["keep"]
	if !ok {
		return
	}
	s.parts["log.keep"] = a.Expr.Range()
	n, ok := l.integer(a)
	if !ok {
		return
	}
	if n < 0 || n > MaxLogKeep {
		r := a.Expr.Range()
		l.errorf(&r, "Invalid value", "log keep must be between 0 and %d, got %d", MaxLogKeep, n)
		return
	}
	s.logKeep = &n
}
