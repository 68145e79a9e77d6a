package schema

import (
	"errors"
	"fmt"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/childproof/childproof/internal/dotenv"
	"github.com/childproof/childproof/internal/specrule"
	"github.com/childproof/childproof/spec"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

var launchSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "command"}, {Name: "dispatch"}, {Name: "dir"}, {Name: "env_file"},
		{Name: "inherit"}, {Name: "env"}, {Name: "require"}, {Name: "forbid_wrappers"},
		{Name: "attempts"}, {Name: "on_stale"}, {Name: "secret"}, {Name: "depends_on"},
		{Name: "volatile"}, {Name: "user"}, {Name: "group"}, {Name: "oneshot"},
	},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "worker"},
		{Type: "port", LabelNames: []string{"name"}},
		{Type: "ready"},
		{Type: "log"},
		{Type: "restart"},
		{Type: "slurm"},
		{Type: "stop"},
	},
}

var workerSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "comm"}, {Name: "exe"}, {Name: "count"}}}

var roleSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "comm"}, {Name: "exe"}, {Name: "count"}, {Name: "ports"}}}

// launchRolesSchema is launchSchema for a launch whose worker blocks are
// labelled roles (worker "NAME" { … }).
var launchRolesSchema = func() *hcl.BodySchema {
	s := *launchSchema
	s.Blocks = slices.Clone(launchSchema.Blocks)
	s.Blocks[0] = hcl.BlockHeaderSchema{Type: "worker", LabelNames: []string{"name"}}
	return &s
}()

// hasRoles reports whether body holds a labelled worker block: the
// launch's worker blocks are then roles, and an unlabelled one among them
// is HCL's "missing name" error.
func hasRoles(body hcl.Body) bool {
	sb, ok := body.(*hclsyntax.Body)
	if !ok {
		return false
	}
	for _, b := range sb.Blocks {
		if b.Type == "worker" && len(b.Labels) > 0 {
			return true
		}
	}
	return false
}

var portSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "number", Required: true}, {Name: "address"}, {Name: "allow_all_interfaces"},
}}

var readySchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "http"}, {Name: "exec"}, {Name: "log"}, {Name: "status"}, {Name: "timeout"}}}

var restartSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "policy", Required: true}, {Name: "max"}, {Name: "backoff"},
}}

var slurmSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "partition"}, {Name: "gres"}, {Name: "time"}, {Name: "nodes"}, {Name: "ntasks_per_node"},
}}

// launchState collects one launch block's parts while it is decoded.
type launchState struct {
	raw    rawLaunch
	failed map[string]bool // top-level names whose decoding failed
	parts  map[string]hcl.Range
	secret map[string]bool
	block  hcl.Range
	whole  hcl.Range
	// logKeep is the log block's keep, nil without one.
	logKeep *int
}

// lineage yields ns and the parts it belongs to, innermost first:
// "port[0].number", "port[0]", "port"; "env[K]", "env".
func lineage(ns string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for yield(ns) {
			switch {
			case strings.HasSuffix(ns, "]"):
				ns = ns[:strings.LastIndexByte(ns, '[')]
			case strings.Contains(ns, "."):
				ns = ns[:strings.LastIndexByte(ns, '.')]
			default:
				return
			}
		}
	}
}

// hidden reports whether the part ns (or the list or map it belongs to)
// came from env() or file(), with the range a diagnostic names instead of
// its value.
func (l *loader) hidden(s *launchState, ns string) (hcl.Range, bool) {
	for p := range lineage(ns) {
		if r, ok := s.parts[p]; ok && l.hiddenAt(r) {
			return r, true
		}
	}
	return hcl.Range{}, false
}

// elsewhere reports whether part ns is a path on another machine: built
// from env() or file() while LookupEnv answers placeholders
// (LoadOptions.EnvPlaceholders). Such a path is not checked here.
func (l *loader) elsewhere(s *launchState, ns string) bool {
	if !l.opts.EnvPlaceholders {
		return false
	}
	_, ok := l.hidden(s, ns)
	return ok
}

// unknown reports whether part ns (or the list or map it belongs to) is an
// unset env() (LoadOptions.LaunchesNothing).
func (l *loader) isUnknown(s *launchState, ns string) bool {
	if len(l.unknown) == 0 {
		return false
	}
	for p := range lineage(ns) {
		if r, ok := s.parts[p]; ok && l.unknownAt(r) {
			return true
		}
	}
	return false
}

// shown is v, or a hiddenValue naming the range of part ns when it came
// from env() or file().
func (l *loader) shown(s *launchState, ns string, v string) any {
	if r, ok := l.hidden(s, ns); ok {
		return hiddenValue{r}
	}
	return v
}

// rng is the source range of part ns, or of the nearest part it belongs
// to that was written, or the launch block's.
func (s *launchState) rng(ns string) *hcl.Range {
	for p := range lineage(ns) {
		if r, ok := s.parts[p]; ok {
			return &r
		}
	}
	r := s.block
	return &r
}

// launch decodes and validates one launch block. It returns nil when the
// block has errors.
func (l *loader) launch(b *hcl.Block, aliases map[string]string) *Launch {
	before := len(l.diags)
	s := l.decodeLaunch(b)
	if s == nil {
		return nil
	}
	decodeFailed := l.diags[before:].HasErrors()
	l.checkFields(s, validateLaunch(&s.raw, func(ns string) (hcl.Range, bool) { return l.hidden(s, ns) }))
	if decodeFailed || l.diags[before:].HasErrors() {
		return nil
	}
	return l.finish(s, aliases, before)
}

// decodeLaunch decodes launch block b into its raw form and source
// ranges, reporting what cannot be decoded; nil when the block has no
// readable content. It decodes the block's label, its list and string
// attributes, env, attempts, then its blocks, each step adding its
// diagnostics in turn.
func (l *loader) decodeLaunch(b *hcl.Block) *launchState {
	s := newLaunchState(b)
	schema := launchSchema
	if hasRoles(b.Body) {
		schema = launchRolesSchema
	}
	c, d := b.Body.Content(schema)
	l.diags = append(l.diags, d...)
	if c == nil {
		return nil
	}
	if d.HasErrors() {
		// A misspelt attribute may be the command: do not also claim
		// that the launch has none.
		s.failed["command"] = true
	}
	l.decodeAttrs(s, c)
	l.decodeEnv(s, c)
	l.decodeAttempts(s, c)
	l.decodeOneshot(s, c)
	l.decodeBlocks(s, c)
	return s
}

// newLaunchState is the state of launch block b before its body is
// decoded: its name (the label) and the ranges of its header, label and
// whole block.
func newLaunchState(b *hcl.Block) *launchState {
	s := &launchState{parts: map[string]hcl.Range{}, secret: map[string]bool{}, failed: map[string]bool{}, block: b.DefRange}
	s.raw.Name = b.Labels[0]
	s.whole = b.DefRange
	if sb, ok := b.Body.(*hclsyntax.Body); ok {
		s.whole = hcl.RangeBetween(b.DefRange, sb.SrcRange)
	}
	s.parts["name"] = b.LabelRanges[0]
	return s
}

// decodeAttrs decodes the launch's list and string attributes, in this
// order: command, dispatch, dir, env_file, inherit, require,
// forbid_wrappers, depends_on, secret, volatile, on_stale, user, group.
func (l *loader) decodeAttrs(s *launchState, c *hcl.BodyContent) {
	l.launchList(s, c, "command", &s.raw.Command)
	l.launchList(s, c, "dispatch", &s.raw.Dispatch)
	l.launchString(s, c, "dir", &s.raw.Dir)
	l.launchString(s, c, "env_file", &s.raw.EnvFile)
	l.launchList(s, c, "inherit", &s.raw.Inherit)
	l.launchList(s, c, "require", &s.raw.Require)
	l.launchList(s, c, "forbid_wrappers", &s.raw.ForbidWrappers)
	l.launchList(s, c, "depends_on", &s.raw.DependsOn)
	l.launchList(s, c, "secret", &s.raw.Secret)
	l.launchList(s, c, "volatile", &s.raw.Volatile)
	l.launchString(s, c, "on_stale", &s.raw.OnStale)
	l.launchString(s, c, "user", &s.raw.User)
	l.launchString(s, c, "group", &s.raw.Group)
}

// attr is the launch's attribute name from its content c, recording its
// range as the part name when it is set.
func (s *launchState) attr(c *hcl.BodyContent, name string) (*hcl.Attribute, bool) {
	a, ok := c.Attributes[name]
	if ok {
		s.parts[name] = a.Expr.Range()
	}
	return a, ok
}

// markFailed records name as failed when decoding it added an error to
// the diagnostics from index n on.
func (l *loader) markFailed(s *launchState, name string, n int) {
	if l.diags[n:].HasErrors() {
		s.failed[name] = true
	}
}

// launchList decodes the launch's list attribute name into dst, with its
// elements' ranges (parts "name[i]") and which of them are secret; a
// list of variable names must be written literally (nameAttrs).
func (l *loader) launchList(s *launchState, c *hcl.BodyContent, name string, dst *[]string) {
	a, ok := s.attr(c, name)
	if !ok {
		return
	}
	defer l.markFailed(s, name, len(l.diags))
	if nameAttrs[name] && !l.literalNames(a) {
		return
	}
	v, secret, ok := l.strList(a)
	if !ok {
		return
	}
	*dst = v
	for i, r := range elementRanges(a.Expr) {
		s.parts[ns(name, i)] = r
	}
	for i := range secret {
		s.secret[ns(name, i)] = true
	}
}

// launchString decodes the launch's string attribute name into dst, and
// whether it is secret.
func (l *loader) launchString(s *launchState, c *hcl.BodyContent, name string, dst *string) {
	if a, ok := s.attr(c, name); ok {
		defer l.markFailed(s, name, len(l.diags))
		if v, secret, ok := l.strSecret(a); ok {
			*dst = v
			s.secret[name] = secret
		}
	}
}

// decodeEnv decodes the launch's env map, with its keys' ranges (parts
// "env[K]") and which values are secret; keys written with env() or
// file() are reported and not decoded.
func (l *loader) decodeEnv(s *launchState, c *hcl.BodyContent) {
	a, ok := s.attr(c, "env")
	if !ok {
		return
	}
	n := len(l.diags)
	if !l.literalNames(a) {
		// keys written with env() or file(): not decoded
	} else if m, secret, ok := l.strMap(a); ok {
		s.raw.Env = m
		for k := range secret {
			s.secret[fmt.Sprintf("env[%s]", k)] = true
		}
		for k, r := range l.keyRanges(a.Expr) {
			s.parts[fmt.Sprintf("env[%s]", k)] = r
		}
	}
	l.markFailed(s, "env", n)
}

// decodeAttempts decodes the launch's attempts, an integer.
func (l *loader) decodeAttempts(s *launchState, c *hcl.BodyContent) {
	a, ok := s.attr(c, "attempts")
	if !ok {
		return
	}
	n := len(l.diags)
	if v, ok := l.integer(a); ok {
		s.raw.Attempts = &v
	}
	l.markFailed(s, "attempts", n)
}

// decodeBlocks decodes the launch's blocks in source order, each by its
// type's step (worker, ready, restart, slurm, port, logBlock); a second
// block of a type a launch has at most one of is reported and skipped.
func (l *loader) decodeBlocks(s *launchState, c *hcl.BodyContent) {
	for _, blk := range c.Blocks {
		n := len(l.diags)
		if len(blk.Labels) == 1 && blk.Type == "worker" {
			l.role(blk, s)
			l.markFailed(s, blk.Type, n)
			continue
		}
		if singleBlocks[blk.Type] && !l.once(s, blk) {
			continue
		}
		switch blk.Type {
		case "worker":
			s.raw.Worker = &rawWorker{}
			l.worker(blk, s)
		case "ready":
			s.raw.Ready = &rawReady{}
			l.ready(blk, s)
		case "restart":
			s.raw.Restart = &rawRestart{}
			l.restart(blk, s)
		case "slurm":
			s.raw.Slurm = &rawSlurm{}
			l.slurm(blk, s)
		case "port":
			l.port(blk, s)
		case "log":
			l.logBlock(blk, s)
		case "stop":
			s.raw.Stop = &rawStop{}
			l.stopBlock(blk, s)
		}
		l.markFailed(s, blk.Type, n)
	}
}

// once reports whether blk is the first block of its type, recording its
// range as the part of that name; a second is reported as a duplicate
// (singleBlocks: a launch has at most one).
func (l *loader) once(s *launchState, blk *hcl.Block) bool {
	if first, dup := s.parts[blk.Type]; dup {
		l.errorf(rangePtr(blk.DefRange), "Duplicate "+blk.Type+" block", "a launch has at most one %s block; the first is at %s", blk.Type, shortRange(first))
		return false
	}
	s.parts[blk.Type] = blk.DefRange
	return true
}

// checkFields reports the field constraints ps that s fails: each at its
// part, unless decoding already reported that part or its value is not
// known here.
func (l *loader) checkFields(s *launchState, ps []fieldProblem) {
	for _, p := range ps {
		root := p.ns
		if i := strings.IndexAny(root, "[."); i >= 0 {
			root = root[:i]
		}
		if s.failed[root] || (root == "command" || root == "dispatch") && (s.failed["command"] || s.failed["dispatch"]) {
			continue // already reported while decoding
		}
		if l.isUnknown(s, p.ns) {
			continue // from the caller, not set here: nothing to check
		}
		l.errorf(s.rng(p.ns), p.summary, "%s", p.detail)
	}
}

func (l *loader) worker(blk *hcl.Block, s *launchState) {
	c, d := blk.Body.Content(workerSchema)
	l.diags = append(l.diags, d...)
	if c == nil {
		return
	}
	if a, ok := c.Attributes["count"]; ok {
		s.parts["worker.count"] = a.Expr.Range()
		if v, ok := l.integer(a); ok {
			s.raw.Worker.Count = &v
		}
	}
	for _, name := range []string{"comm", "exe"} {
		a, ok := c.Attributes[name]
		if !ok {
			continue
		}
		s.parts["worker."+name] = a.Expr.Range()
		v, secret, ok := l.strSecret(a)
		if !ok {
			continue
		}
		s.secret["worker."+name] = secret
		if name == "comm" {
			s.raw.Worker.Comm = v
		} else {
			s.raw.Worker.Exe = v
		}
	}
}

// role decodes a labelled worker "NAME" block; a second role of the same
// name is reported and skipped.
func (l *loader) role(blk *hcl.Block, s *launchState) {
	name := blk.Labels[0]
	for i, r := range s.raw.Roles {
		if r.Name == name {
			l.errorf(rangePtr(blk.DefRange), "Duplicate worker role", "a launch has one worker %q block; the first is at %s", name, shortRange(s.parts[ns("worker", i)]))
			return
		}
	}
	i := len(s.raw.Roles)
	r := rawRole{Name: name}
	s.parts[ns("worker", i)] = blk.DefRange
	s.parts[ns("worker", i, "name")] = blk.LabelRanges[0]
	c, d := blk.Body.Content(roleSchema)
	l.diags = append(l.diags, d...)
	if c != nil {
		if a, ok := c.Attributes["count"]; ok {
			s.parts[ns("worker", i, "count")] = a.Expr.Range()
			if v, ok := l.integer(a); ok {
				r.Count = &v
			}
		}
		for _, attr := range []string{"comm", "exe"} {
			a, ok := c.Attributes[attr]
			if !ok {
				continue
			}
			s.parts[ns("worker", i, attr)] = a.Expr.Range()
			if v, secret, ok := l.strSecret(a); ok {
				s.secret[ns("worker", i, attr)] = secret
				if attr == "comm" {
					r.Comm = v
				} else {
					r.Exe = v
				}
			}
		}
		if a, ok := c.Attributes["ports"]; ok {
			s.parts[ns("worker", i, "ports")] = a.Expr.Range()
			if v, _, ok := l.strList(a); ok {
				r.Ports = v
			}
		}
	}
	s.raw.Roles = append(s.raw.Roles, r)
}

func (l *loader) ready(blk *hcl.Block, s *launchState) {
	c, d := blk.Body.Content(readySchema)
	l.diags = append(l.diags, d...)
	if c == nil {
		return
	}
	if a, ok := c.Attributes["http"]; ok {
		s.parts["ready.http"] = a.Expr.Range()
		if v, secret, ok := l.strSecret(a); ok {
			s.raw.Ready.HTTP = v
			s.secret["ready.http"] = secret
		}
	}
	l.readyBody(c, s)
	l.strAttr(c, s, "ready", "timeout", &s.raw.Ready.Timeout)
}

func (l *loader) restart(blk *hcl.Block, s *launchState) {
	c, d := blk.Body.Content(restartSchema)
	l.diags = append(l.diags, d...)
	if c == nil {
		return
	}
	l.strAttr(c, s, "restart", "policy", &s.raw.Restart.Policy)
	if a, ok := c.Attributes["max"]; ok {
		s.parts["restart.max"] = a.Expr.Range()
		if v, ok := l.integer(a); ok {
			s.raw.Restart.Max = &v
		}
	}
	l.strAttr(c, s, "restart", "backoff", &s.raw.Restart.Backoff)
}

func (l *loader) slurm(blk *hcl.Block, s *launchState) {
	c, d := blk.Body.Content(slurmSchema)
	l.diags = append(l.diags, d...)
	if c == nil {
		return
	}
	l.strAttr(c, s, "slurm", "partition", &s.raw.Slurm.Partition)
	l.strAttr(c, s, "slurm", "gres", &s.raw.Slurm.Gres)
	l.strAttr(c, s, "slurm", "time", &s.raw.Slurm.Time)
	for name, dst := range map[string]**int{"nodes": &s.raw.Slurm.Nodes, "ntasks_per_node": &s.raw.Slurm.TasksPerNode} {
		if a, ok := c.Attributes[name]; ok {
			s.parts["slurm."+name] = a.Expr.Range()
			if v, ok := l.integer(a); ok {
				*dst = &v
			}
		}
	}
}

// strAttr decodes the string attribute name of a block's content c into
// dst, recording its range as the part "block.name".
func (l *loader) strAttr(c *hcl.BodyContent, s *launchState, block, name string, dst *string) {
	a, ok := c.Attributes[name]
	if !ok {
		return
	}
	s.parts[block+"."+name] = a.Expr.Range()
	if v, ok := l.str(a); ok {
		*dst = v
	}
}

func (l *loader) port(blk *hcl.Block, s *launchState) {
	i := len(s.raw.Ports)
	p := rawPort{Name: blk.Labels[0]}
	s.parts[ns("port", i)] = blk.DefRange
	s.parts[ns("port", i, "name")] = blk.LabelRanges[0]
	c, d := blk.Body.Content(portSchema)
	l.diags = append(l.diags, d...)
	if c != nil {
		if a, ok := c.Attributes["number"]; ok {
			s.parts[ns("port", i, "number")] = a.Expr.Range()
			if n, ok := l.integer(a); ok {
				p.Number = n
			}
		}
		if a, ok := c.Attributes["address"]; ok {
			s.parts[ns("port", i, "address")] = a.Expr.Range()
			if v, ok := l.str(a); ok {
				p.Address = v
			}
		}
		if a, ok := c.Attributes["allow_all_interfaces"]; ok {
			s.parts[ns("port", i, "allow_all_interfaces")] = a.Expr.Range()
			if v, ok := l.boolean(a); ok {
				p.AllowAllInterfaces = v
			}
		}
	}
	s.raw.Ports = append(s.raw.Ports, p)
}

// finish builds the Launch and runs the checks that need more than one
// field or the file system, one step after another, each adding its
// diagnostics in turn. It returns nil when the block's diagnostics (those
// from index before on: its decoding, its fields' checks and these) hold
// an error; only a launch it returns gets the dropped-runtime-variables
// warning.
func (l *loader) finish(s *launchState, aliases map[string]string, before int) *Launch {
	la := l.newLaunch(s, aliases)
	l.checkWorkerCount(s, la)
	l.resolveDir(s, la)
	envFileNames := l.readEnvFile(s, la)
	l.checkPorts(s, la)
	l.checkRoles(s, la)
	l.checkDispatchScript(s, la)
	l.checkProgram(s, la)
	l.checkRequire(s, la, envFileNames)
	l.checkWorkerSelector(s, la)
	l.checkOneshot(s, la)
	l.checkReady(s)
	l.checkReadyPort(s, la)
	l.warnRemovedAndAliases(s, la, aliases)
	if l.diags[before:].HasErrors() {
		return nil
	}
	l.warnDroppedRuntimeVars(s, la)
	l.recordParts(s, la)
	return la
}

// newLaunch builds the Launch from the block's decoded fields, with the
// defaults of what the spec leaves out (an empty Env, restart's max and
// backoff); Dir is the spec file's directory until resolveDir. It adds
// no diagnostic.
func (l *loader) newLaunch(s *launchState, aliases map[string]string) *Launch {
	r := &s.raw
	la := &Launch{
		LogKeep:        s.logKeep,
		Name:           r.Name,
		SpecPath:       l.abs,
		Command:        r.Command,
		Dispatch:       r.Dispatch,
		Dir:            l.dir,
		Inherit:        r.Inherit,
		Env:            r.Env,
		Require:        r.Require,
		ForbidWrappers: r.ForbidWrappers,
		DependsOn:      r.DependsOn,
		OnStale:        OnStale(r.OnStale),
		Secret:         r.Secret,
		Volatile:       r.Volatile,
		User:           r.User,
		Group:          r.Group,
		Aliases:        maps.Clone(aliases),
	}
	if la.Env == nil {
		la.Env = map[string]string{}
	}
	if r.Attempts != nil {
		la.Attempts = *r.Attempts
	}
	if r.Worker != nil {
		la.Worker = Worker{Comm: r.Worker.Comm, Exe: r.Worker.Exe}
		if r.Worker.Count != nil {
			la.Worker.Count = *r.Worker.Count
		}
	}
	for _, rr := range r.Roles {
		role := Role{Name: rr.Name, Worker: Worker{Comm: rr.Comm, Exe: rr.Exe}, Ports: rr.Ports}
		if rr.Count != nil {
			role.Worker.Count = *rr.Count
		}
		la.Roles = append(la.Roles, role)
	}
	if i := la.PrimaryRole(); i >= 0 {
		la.Worker = la.Roles[i].Worker
	}
	if r.Ready != nil {
		la.Ready.HTTP, la.Ready.Exec, la.Ready.Log, la.Ready.Status = r.Ready.HTTP, r.Ready.Exec, r.Ready.Log, r.Ready.Status
		if r.Ready.Timeout != "" {
			la.Ready.Timeout, _ = time.ParseDuration(r.Ready.Timeout)
		}
	}
	if rs := r.Restart; rs != nil {
		la.Restart = restartOf(rs)
	}
	if sl := r.Slurm; sl != nil {
		la.Slurm = Slurm{Partition: sl.Partition, Gres: sl.Gres, Time: sl.Time}
		if sl.Nodes != nil {
			la.Slurm.Nodes = *sl.Nodes
		}
		if sl.TasksPerNode != nil {
			la.Slurm.TasksPerNode = *sl.TasksPerNode
		}
	}
	if st := r.Stop; st != nil {
		la.Stop.Signal = st.Signal
		la.Stop.Timeout, _ = time.ParseDuration(st.Timeout)
	}
	la.Oneshot = r.Oneshot
	return la
}

// restartOf is the Restart a restart block rs says, with max 5 and
// backoff 1s where it names none.
func restartOf(rs *rawRestart) Restart {
	out := Restart{Policy: RestartPolicy(rs.Policy), Max: 5, Backoff: time.Second}
	if rs.Max != nil {
		out.Max = *rs.Max
	}
	if rs.Backoff != "" {
		out.Backoff, _ = time.ParseDuration(rs.Backoff)
	}
	return out
}

// checkWorkerCount reports a worker count above one without comm or exe:
// nothing would say which processes are the workers.
func (l *loader) checkWorkerCount(s *launchState, la *Launch) {
	if len(la.Roles) > 0 {
		return // checkRoles, once the ports are known
	}
	if d := specrule.WorkerCountDetail(la.Worker.Count, la.Worker.Comm, la.Worker.Exe); d != "" {
		l.errorf(s.rng("worker.count"), "Worker count without a selector", "%s", d)
	}
}

// roleProblems are specrule.RoleProblems of la's roles.
func roleProblems(la *Launch) []fieldProblem {
	roles := make([]specrule.Role, len(la.Roles))
	for i, r := range la.Roles {
		roles[i] = specrule.Role{Name: r.Name, Comm: r.Worker.Comm, Exe: r.Worker.Exe, Count: r.Worker.Count, Ports: r.Ports}
	}
	ports := make([]string, len(la.Ports))
	for i, p := range la.Ports {
		ports[i] = p.Name
	}
	return fromRule(specrule.RoleProblems(roles, ports))
}

// fromRule converts specrule's problems.
func fromRule(ps []specrule.Problem) []fieldProblem {
	out := make([]fieldProblem, len(ps))
	for i, p := range ps {
		out[i] = fieldProblem{ns: p.NS, summary: p.Summary, detail: p.Detail}
	}
	return out
}

// checkRoles reports roleProblems at their parts.
func (l *loader) checkRoles(s *launchState, la *Launch) {
	for _, p := range roleProblems(la) {
		l.errorf(s.rng(p.ns), p.summary, "%s", p.detail)
	}
}

// resolveDir sets la.Dir to dir resolved against the spec file's
// directory, and reports it when it is not a directory. A dir from an
// unset env() is left as the spec file's directory.
func (l *loader) resolveDir(s *launchState, la *Launch) {
	r := &s.raw
	if r.Dir == "" || l.isUnknown(s, "dir") {
		return
	}
	d := r.Dir
	if l.elsewhere(s, "dir") {
		// The target's path, as the engine will resolve it: never
		// joined to this machine's directories, nor checked here.
		la.Dir = d
		return
	}
	if !filepath.IsAbs(d) {
		d = filepath.Join(l.dir, d)
	}
	la.Dir = filepath.Clean(d)
	if fi, err := os.Stat(la.Dir); err != nil || !fi.IsDir() {
		if h, ok := l.hidden(s, "dir"); ok {
			l.errorf(s.rng("dir"), "Directory not found", "dir %v is not a directory", hiddenValue{h})
		} else {
			l.errorf(s.rng("dir"), "Directory not found", "dir %q (%s) is not a directory", r.Dir, la.Dir)
		}
	}
}

// readEnvFile sets la.EnvFile to env_file resolved against the spec
// file's directory, reads and parses it, and returns the names it sets
// (for checkRequire). It reports a file that cannot be read or parsed,
// naming one from env() or file() by where it is written.
func (l *loader) readEnvFile(s *launchState, la *Launch) map[string]dotenv.Entry {
	r := &s.raw
	names := map[string]dotenv.Entry{}
	if r.EnvFile == "" || l.isUnknown(s, "env_file") {
		return names
	}
	if l.elsewhere(s, "env_file") {
		la.EnvFile = r.EnvFile
		return names
	}
	p := r.EnvFile
	if !filepath.IsAbs(p) {
		p = filepath.Join(l.dir, p)
	}
	la.EnvFile = filepath.Clean(p)
	shownName := r.EnvFile
	h, hide := l.hidden(s, "env_file")
	if hide {
		shownName = hiddenValue{h}.String()
	}
	data, err := readLimited(la.EnvFile)
	switch {
	case err != nil && hide:
		l.errorf(s.rng("env_file"), "Cannot read env_file", "env_file %s cannot be read", shownName)
	case err != nil:
		l.errorf(s.rng("env_file"), "Cannot read env_file", "%s", oneLineErr(err))
	default:
		entries, err := dotenv.Parse(shownName, data)
		if err != nil {
			l.errorf(s.rng("env_file"), "Invalid env_file", "%v", err)
		}
		names = dotenv.Map(entries)
	}
	return names
}

// checkPorts sets la.Ports to the port blocks, reporting (and leaving
// out) a port whose name or number an earlier block already declares.
func (l *loader) checkPorts(s *launchState, la *Launch) {
	names, numbers := map[string]int{}, map[int]int{}
	for i, p := range s.raw.Ports {
		if j, dup := names[p.Name]; dup {
			l.errorf(s.rng(ns("port", i, "name")), "Duplicate port name", "port %q is already declared at %s", p.Name, shortRange(*s.rng(ns("port", j))))
			continue
		}
		names[p.Name] = i
		if j, dup := numbers[p.Number]; dup {
			l.errorf(s.rng(ns("port", i, "number")), "Duplicate port number", "port %d is already declared at %s", p.Number, shortRange(*s.rng(ns("port", j))))
			continue
		}
		numbers[p.Number] = i
		la.Ports = append(la.Ports, Port{Name: p.Name, Number: p.Number, Address: p.Address, AllowAllInterfaces: p.AllowAllInterfaces})
	}
}

// checkDispatchScript reports a dispatch script (dispatch[0], relative
// to la.Dir) that is not a regular file.
func (l *loader) checkDispatchScript(s *launchState, la *Launch) {
	if len(la.Dispatch) == 0 || l.isUnknown(s, "dispatch[0]") || l.elsewhere(s, "dispatch[0]") || l.elsewhere(s, "dir") && !filepath.IsAbs(la.Dispatch[0]) {
		return
	}
	script := la.Dispatch[0]
	if !filepath.IsAbs(script) {
		script = filepath.Join(la.Dir, script)
	}
	if fi, err := os.Stat(script); err != nil || !fi.Mode().IsRegular() {
		if h, ok := l.hidden(s, "dispatch[0]"); ok {
			l.errorf(s.rng("dispatch[0]"), "Dispatch script not found", "%v is not a file; dispatch[0] is a script path relative to dir", hiddenValue{h})
		} else {
			l.errorf(s.rng("dispatch[0]"), "Dispatch script not found", "%q (%s) is not a file; dispatch[0] is a script path relative to dir", la.Dispatch[0], script)
		}
	}
}

// checkProgram reports a command[0] that cannot be found: a path
// (relative to la.Dir) that is not an executable file, or a name on
// neither the launch's PATH nor this one (an error, or a warning with
// LoadOptions.MissingProgramOK: see programf). A program named by env()
// or file() is checked alike; the diagnostic names where it is written,
// not the name.
func (l *loader) checkProgram(s *launchState, la *Launch) {
	if len(la.Command) == 0 || l.isUnknown(s, "command[0]") || l.elsewhere(s, "command[0]") {
		return
	}
	if l.elsewhere(s, "dir") && strings.Contains(la.Command[0], "/") && !filepath.IsAbs(la.Command[0]) {
		return
	}
	prog := la.Command[0]
	h, hide := l.hidden(s, "command[0]")
	if !strings.Contains(prog, "/") {
		if !l.onPath(prog, la) {
			l.programf(s.rng("command[0]"), "Program not found", "%v "+specrule.NotOnPath, l.shown(s, "command[0]", strconv.Quote(prog)))
		}
		return
	}
	if p, ok := specrule.FindProgram(prog, "", la.Dir); !ok {
		if hide {
			l.programf(s.rng("command[0]"), "Program not found", "%v "+specrule.NotExecutable, hiddenValue{h})
		} else {
			l.programf(s.rng("command[0]"), "Program not found", "%q (%s) "+specrule.NotExecutable, prog, p)
		}
	}
}

// checkRequire reports each required variable that env or the env file
// sets to an empty string, or that no source provides: not a key of env,
// not set by the env file (envFile, from readEnvFile, its last assignment
// of each name), not passed by inherit. An empty value that env takes
// from env() or file() is the caller's: for a launch the command does not
// act on (programsOptional) it is a warning, not an error.
func (l *loader) checkRequire(s *launchState, la *Launch, envFile map[string]dotenv.Entry) {
	inherit := la.EffectiveInherit()
	for i, name := range la.Require {
		v, inEnv := la.Env[name]
		fe, inFile := envFile[name]
		shown := l.shown(s, ns("require", i), name)
		switch {
		case inEnv && v == "" && !l.isUnknown(s, fmt.Sprintf("env[%s]", name)):
			at, fromCaller := l.hidden(s, fmt.Sprintf("env[%s]", name))
			switch {
			case !fromCaller:
				l.errorf(s.rng(ns("require", i)), "Required variable set empty", "%v is required to be non-empty on the worker, but env sets it to an empty string", shown)
			case l.programsOptional:
				l.warnf(s.rng(ns("require", i)), "Required variable set empty", "%v is required to be non-empty on the worker, but the value env gives it (env() or file() at %s) is empty here (a warning: this command does not launch %s)", shown, shortRange(at), la.Name)
			default:
				l.errorf(s.rng(ns("require", i)), "Required variable set empty", "%v is required to be non-empty on the worker, but the value env gives it (env() or file() at %s) is empty: the caller's variable (or the file) is set but empty", shown, shortRange(at))
			}
		case !inEnv && inFile && fe.Value == "" && !fe.Dynamic:
			file := s.raw.EnvFile
			if h, hide := l.hidden(s, "env_file"); hide {
				file = hiddenValue{h}.String()
			}
			l.errorf(s.rng(ns("require", i)), "Required variable set empty", "%v is required to be non-empty on the worker, but env_file %s sets it to an empty string (line %d)", shown, file, fe.Line)
		case inEnv, inFile, la.Inherits(name):
		default:
			l.errorf(s.rng(ns("require", i)), "Required variable has no source", "%s", l.noSourceDetail(s, la, i, inherit))
		}
	}
}

// noSourceDetail is the detail of "Required variable has no source" for
// require[i]: the sources looked in, inherit (the effective list) and the
// env file; the name, an inherit entry or the env file that came from
// env() or file() is named by where it is written.
func (l *loader) noSourceDetail(s *launchState, la *Launch, i int, inherit []string) string {
	shownInherit := make([]string, len(inherit))
	for j, n := range inherit {
		shownInherit[j] = n
		if la.Inherit != nil {
			if h, ok := l.hidden(s, ns("inherit", j)); ok {
				shownInherit[j] = hiddenValue{h}.String()
			}
		}
	}
	shownName := fmt.Sprint(l.shown(s, ns("require", i), la.Require[i]))
	detail := fmt.Sprintf("%s is required on the worker but no source provides it: it is not a key of env, not in inherit (%s)", shownName, strings.Join(shownInherit, ", "))
	if la.EnvFile != "" {
		detail += ", and " + fmt.Sprint(l.shown(s, "env_file", s.raw.EnvFile)) + " does not set it"
	} else {
		detail += ", and there is no env_file"
	}
	return detail + "; add it to inherit to pass the caller's value, or to env"
}

// checkWorkerSelector checks worker's comm and exe against what a
// process can have: it warns of a comm that is a path and of an exe that
// does not exist (yet), and reports an exe no process can ever have.
func (l *loader) checkWorkerSelector(s *launchState, la *Launch) {
	// A comm is a file name (at most 15 bytes), never a path.
	if strings.Contains(la.Worker.Comm, "/") {
		l.warnf(s.rng("worker.comm"), "Worker comm is a path", "comm %q: /proc/PID/comm is the program's file name (a script's own name), never a path, so this can only match a process that renamed itself so; to select by path write exe = %q", la.Worker.Comm, la.Worker.Comm)
	}
	if l.elsewhere(s, "worker.exe") {
		return
	}
	if err := ExeNeverMatches(la.Worker.Exe); errors.Is(err, ErrExeMissing) {
		l.warnf(s.rng("worker.exe"), "Worker exe not found", "%v; run refuses it unless it exists by then", err)
	} else if err != nil {
		l.errorf(s.rng("worker.exe"), "Worker exe can never match", "%v", err)
	}
}

// warnRemovedAndAliases warns of the variables a dispatch script never
// gets (spec.RemovedVars) that inherit lists or env sets, and of the known
// no-op aliases (aliases: the spec's alias blocks) that env sets or
// require names. Env's names are taken in sorted order, each with both
// of its warnings.
func (l *loader) warnRemovedAndAliases(s *launchState, la *Launch, aliases map[string]string) {
	for i, name := range la.Inherit {
		if slices.Contains(spec.RemovedVars, name) { // a pattern ("*") never passes them: no warning
			l.warnf(s.rng(ns("inherit", i)), "Variable will be removed", "%s is removed before a dispatch script runs (bash would source the file it names), even when inherit lists it", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(la.Env)) {
		if slices.Contains(spec.RemovedVars, name) {
			l.warnf(s.rng(fmt.Sprintf("env[%s]", name)), "Variable will be removed", "%s is removed before a dispatch script runs (bash would source the file it names)", name)
		}
		if real, ok := aliases[name]; ok {
			l.noopAlias(s.rng(fmt.Sprintf("env[%s]", name)), name, real, "setting it does nothing")
		}
	}
	for i, name := range la.Require {
		if real, ok := aliases[name]; ok {
			l.noopAlias(s.rng(ns("require", i)), name, real, "requiring it proves nothing")
		}
	}
}

// warnDroppedRuntimeVars warns of the well-known runtime variables
// (RuntimeVars) set in the caller's environment (environ) that the launch
// does not pass; nothing when that environment is not known.
func (l *loader) warnDroppedRuntimeVars(s *launchState, la *Launch) {
	environ := l.environ()
	if environ == nil {
		return
	}
	if dropped := la.DroppedRuntimeVars(environ); len(dropped) > 0 {
		l.warnf(s.rng("inherit"), "Runtime variables dropped",
			"%s %s set in this environment but the launch does not pass %s (inherit: %s): the worker runs without %s; add %s to inherit (a pattern such as \"CUDA_*\" works) or to env",
			strings.Join(dropped, ", "), isAre(len(dropped)), itThem(len(dropped)), strings.Join(la.EffectiveInherit(), ", "), itThem(len(dropped)), itThem(len(dropped)))
	}
}

// recordParts sets what la says about the spec's parts: Unknown (the
// parts holding an unset env()), Ranges and Sensitive (the parts whose
// value came from env() or file()). Unknown and Sensitive stay nil when
// no part is one.
func (l *loader) recordParts(s *launchState, la *Launch) {
	for k, r := range s.parts {
		if l.unknownAt(r) {
			if la.Unknown == nil {
				la.Unknown = map[string]bool{}
			}
			la.Unknown[k] = true
		}
	}
	la.Ranges = ranges(s)
	for k, v := range s.secret {
		if v {
			if la.Sensitive == nil {
				la.Sensitive = map[string]bool{}
			}
			la.Sensitive[k] = true
		}
	}
}

func ranges(s *launchState) Ranges {
	parts := make(map[string]spec.Range, len(s.parts))
	for k, r := range s.parts {
		parts[k] = SpecRange(r)
	}
	out := Ranges{Block: SpecRange(s.block), Whole: SpecRange(s.whole), Parts: parts, Env: map[string]spec.Range{}}
	out.Command = parts["command"]
	out.Dispatch = parts["dispatch"]
	out.EnvFile = parts["env_file"]
	out.Require = parts["require"]
	for i := range s.raw.Ports {
		out.Ports = append(out.Ports, parts[ns("port", i)])
	}
	for k, r := range parts {
		if strings.HasPrefix(k, "env[") {
			out.Env[strings.TrimSuffix(strings.TrimPrefix(k, "env["), "]")] = r
		}
	}
	return out
}

// environ returns the caller's environment for the dropped-runtime-variable
// warning, or nil when it is not known (see LoadOptions.Environ).
func (l *loader) environ() []string {
	switch {
	case l.opts.Environ != nil:
		return l.opts.Environ()
	case l.opts.LookupEnv == nil:
		return os.Environ()
	}
	return nil
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func itThem(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// singleBlocks are the blocks a launch has at most one of.
var singleBlocks = map[string]bool{"worker": true, "ready": true, "restart": true, "slurm": true, "log": true, "stop": true}
