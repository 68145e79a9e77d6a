package export

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/childproof/childproof/internal/testsupport"
	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/hashicorp/nomad/api"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/gocty"
)

// decodeNomad parses a job file and decodes it strictly into Nomad's own
// types, by the hcl tags of github.com/hashicorp/nomad/api (the main nomad
// module's jobspec parser is not open source): an unknown block or
// attribute, or a value of the wrong type, is an error.
func decodeNomad(t *testing.T, src string) *api.Job {
	t.Helper()
	// The job is laid out as nomad fmt (hclwrite) lays it out.
	if canon := string(hclwrite.Format([]byte(src))); canon != src {
		t.Errorf("the job is not canonical HCL: (-want +got):\n%s", cmp.Diff(canon, src))
	}
	f, diags := hclsyntax.ParseConfig([]byte(src), "job.nomad.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("parse: %v\n%s", diags, src)
	}
	c, diags := f.Body.Content(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "job", LabelNames: []string{"id"}}}})
	if diags.HasErrors() || len(c.Blocks) != 1 {
		t.Fatalf("want one job block: %v", diags)
	}
	job := &api.Job{ID: &c.Blocks[0].Labels[0]}
	if err := decodeTagged(c.Blocks[0].Body, reflect.ValueOf(job).Elem()); err != nil {
		t.Fatalf("decode: %v\n%s", err, src)
	}
	return job
}

// decodeTagged decodes body into the struct v by its fields' hcl tags.
func decodeTagged(body hcl.Body, v reflect.Value) error {
	type field struct {
		index int
		block bool
	}
	fields := map[string]field{}
	schema := &hcl.BodySchema{}
	for i := 0; i < v.NumField(); i++ {
		tag := v.Type().Field(i).Tag.Get("hcl")
		name, kind, _ := strings.Cut(tag, ",")
		if tag == "" || kind == "label" {
			continue
		}
		if kind == "block" {
			ft := v.Field(i).Type()
			if ft.Kind() == reflect.Map { // env, meta, config: attributes only
				schema.Blocks = append(schema.Blocks, hcl.BlockHeaderSchema{Type: name})
			} else {
				schema.Blocks = append(schema.Blocks, hcl.BlockHeaderSchema{Type: name, LabelNames: labelNames(ft)})
			}
			fields[name] = field{i, true}
			continue
		}
		schema.Attributes = append(schema.Attributes, hcl.AttributeSchema{Name: name})
		fields[name] = field{i, false}
	}
	c, diags := body.Content(schema)
	if diags.HasErrors() {
		return diags
	}
	for name, a := range c.Attributes {
		val, diags := a.Expr.Value(nil)
		if diags.HasErrors() {
			return diags
		}
		if err := setValue(v.Field(fields[name].index), val); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	for _, b := range c.Blocks {
		fv := v.Field(fields[b.Type].index)
		if err := setBlock(fv, b); err != nil {
			return fmt.Errorf("%s: %w", b.Type, err)
		}
	}
	return nil
}

// labelNames returns the label of a block's element type (a field tagged
// ",label"), if any.
func labelNames(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	for i := 0; i < t.NumField(); i++ {
		if _, kind, _ := strings.Cut(t.Field(i).Tag.Get("hcl"), ","); kind == "label" {
			return []string{"label"}
		}
	}
	return nil
}

func setBlock(fv reflect.Value, b *hcl.Block) error {
	if fv.Kind() == reflect.Map {
		attrs, diags := b.Body.JustAttributes()
		if diags.HasErrors() {
			return diags
		}
		m := reflect.MakeMap(fv.Type())
		for name, a := range attrs {
			val, diags := a.Expr.Value(nil)
			if diags.HasErrors() {
				return diags
			}
			ev := reflect.New(fv.Type().Elem()).Elem()
			if err := setValue(ev, val); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			m.SetMapIndex(reflect.ValueOf(name), ev)
		}
		fv.Set(m)
		return nil
	}
	// A struct, a pointer to one, or a slice of either.
	et := fv.Type()
	if et.Kind() == reflect.Slice {
		et = et.Elem()
	}
	ptr := et.Kind() == reflect.Pointer
	st := et
	if ptr {
		st = et.Elem()
	}
	sv := reflect.New(st).Elem()
	for i := 0; i < st.NumField(); i++ {
		if _, kind, _ := strings.Cut(st.Field(i).Tag.Get("hcl"), ","); kind == "label" && len(b.Labels) > 0 {
			if err := setValue(sv.Field(i), cty.StringVal(b.Labels[0])); err != nil {
				return err
			}
		}
	}
	if err := decodeTagged(b.Body, sv); err != nil {
		return err
	}
	elem := sv
	if ptr {
		elem = sv.Addr()
	}
	if fv.Kind() == reflect.Slice {
		fv.Set(reflect.Append(fv, elem))
	} else {
		fv.Set(elem)
	}
	return nil
}

var durationType = reflect.TypeOf(time.Duration(0))

// setValue stores val into fv, converting as jobspec does: durations from
// strings like "10s", pointers allocated.
func setValue(fv reflect.Value, val cty.Value) error {
	if fv.Kind() == reflect.Pointer {
		p := reflect.New(fv.Type().Elem())
		if err := setValue(p.Elem(), val); err != nil {
			return err
		}
		fv.Set(p)
		return nil
	}
	switch {
	case fv.Type() == durationType:
		if val.Type() != cty.String {
			return fmt.Errorf("a duration must be a string, got %s", val.Type().FriendlyName())
		}
		d, err := time.ParseDuration(val.AsString())
		if err != nil {
			return err
		}
		fv.SetInt(int64(d))
		return nil
	case fv.Kind() == reflect.Interface: // config's map[string]any
		switch {
		case val.Type() == cty.String:
			fv.Set(reflect.ValueOf(val.AsString()))
		case val.Type().IsTupleType() || val.Type().IsListType():
			var ss []string
			lv, err := convert.Convert(val, cty.List(cty.String))
			if err != nil {
				return err
			}
			if err := gocty.FromCtyValue(lv, &ss); err != nil {
				return err
			}
			fv.Set(reflect.ValueOf(ss))
		default:
			return fmt.Errorf("unexpected config value of type %s", val.Type().FriendlyName())
		}
		return nil
	}
	ty, err := gocty.ImpliedType(fv.Interface())
	if err != nil {
		return err
	}
	cv, err := convert.Convert(val, ty)
	if err != nil {
		return err
	}
	return gocty.FromCtyValue(cv, fv.Addr().Interface())
}

func TestNomadStory(t *testing.T) {
	dir := storyTree(t)
	l := load(t, dir, "mock-llm")
	out := render(t, l, Options{Engine: Nomad, Dir: "/srv/mock"})
	job := decodeNomad(t, out)
	if *job.ID != "mock-llm" || *job.Type != "batch" {
		t.Errorf("job %q type %q", *job.ID, *job.Type)
	}
	if len(job.TaskGroups) != 1 || len(job.TaskGroups[0].Tasks) != 1 {
		t.Fatalf("groups: %+v", job.TaskGroups)
	}
	g := job.TaskGroups[0]
	wantRestart := &api.RestartPolicy{Attempts: ptr(3), Delay: ptr(2 * time.Second), Interval: ptr(8760 * time.Hour), Mode: ptr("fail")}
	if diff := cmp.Diff(wantRestart, g.RestartPolicy); diff != "" {
		t.Errorf("restart (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&api.ReschedulePolicy{Attempts: ptr(0), Unlimited: ptr(false)}, g.ReschedulePolicy); diff != "" {
		t.Errorf("reschedule (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]*api.NetworkResource{{DynamicPorts: []api.Port{{Label: "http", Value: 18081}}}}, g.Networks); diff != "" {
		t.Errorf("network (-want +got):\n%s", diff)
	}
	task := g.Tasks[0]
	if task.Driver != "exec" {
		t.Errorf("driver %q", task.Driver)
	}
	wantConfig := map[string]any{
		"command":  "/srv/mock/bin/mock-llm",
		"args":     []string{"--addr", "127.0.0.1:18081", "--greeting", `100% "ok" $HOME; it's`},
		"work_dir": "/srv/mock",
		"pid_mode": "private",
	}
	if diff := cmp.Diff(wantConfig, task.Config); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"HF_HUB_ENABLE_HF_TRANSFER": "0", "LOG_LEVEL": "debug"}, task.Env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	if len(task.Templates) != 1 {
		t.Fatalf("templates: %+v", task.Templates)
	}
	tm := task.Templates[0]
	// toJSON: a value with a newline, quote or '#' reaches the task as it is.
	wantData := "{{ with nomadVar \"nomad/jobs/mock-llm\" }}\nMOCK_LLM_KEY={{ .MOCK_LLM_KEY.Value | toJSON }}\nMODEL={{ .MODEL.Value | toJSON }}\nTOKEN={{ .TOKEN.Value | toJSON }}\n{{ end }}\n"
	if *tm.DestPath != NomadSecretsFile || !*tm.Envvars || *tm.EmbeddedTmpl != wantData || tm.ErrMissingKey == nil || !*tm.ErrMissingKey {
		t.Errorf("template: %q %v %q", *tm.DestPath, *tm.Envvars, *tm.EmbeddedTmpl)
	}
	if len(task.Services) != 1 || len(task.Services[0].Checks) != 2 {
		t.Fatalf("services: %+v", task.Services)
	}
	svc := task.Services[0]
	if svc.Name != "mock-llm" || svc.PortLabel != "http" || svc.Provider != "consul" {
		t.Errorf("service: %+v", svc)
	}
	wantCheck := api.ServiceCheck{Name: "childproof verify", Type: "script", Command: "childproof",
		Args: []string{"verify", "--state-dir", "/local/childproof", "--pid", "1",
			"--env", "HF_HUB_ENABLE_HF_TRANSFER=0", "--env", "LOG_LEVEL=debug", "--env", "MOCK_LLM_KEY", "--env", "TOKEN",
			"--port", "18081", "--comm", "mock-llm"},
		Interval: 10 * time.Second, Timeout: 5 * time.Second,
		// A failing check restarts the task: a batch job would run on.
		CheckRestart: &api.CheckRestart{Limit: 3, Grace: ptr(5 * time.Second)}}
	if diff := cmp.Diff(wantCheck, svc.Checks[0]); diff != "" {
		t.Errorf("check (-want +got):\n%s", diff)
	}
	// The spec's own readiness, ready.http, is Nomad's http check.
	if ck := svc.Checks[1]; ck.Type != "http" || ck.Path != "/healthz" || ck.Name != "ready" {
		t.Errorf("ready check: %+v", ck)
	}
	if !strings.Contains(out, "nomad var put nomad/jobs/mock-llm MOCK_LLM_KEY=… MODEL=… TOKEN=…") {
		t.Errorf("job lacks the nomad var put line:\n%s", out)
	}
}

func TestNomadRestartAndDispatch(t *testing.T) {
	l := load(t, storyTree(t), "dispatched")
	job := decodeNomad(t, render(t, l, Options{Engine: Nomad}))
	g := job.TaskGroups[0]
	if *job.Type != "batch" || *g.RestartPolicy.Attempts != 0 || len(g.Networks) != 0 || len(g.Tasks[0].Templates) != 0 {
		t.Errorf("never-restart dispatch job: type %q restart %+v", *job.Type, g.RestartPolicy)
	}
	if got := g.Tasks[0].Config["command"]; got != "/bin/bash" {
		t.Errorf("command %v", got)
	}
	l.Restart.Policy = "always"
	job = decodeNomad(t, render(t, l, Options{Engine: Nomad}))
	if *job.Type != "service" || *job.TaskGroups[0].RestartPolicy.Attempts != 5 {
		t.Errorf("always: type %q restart %+v", *job.Type, job.TaskGroups[0].RestartPolicy)
	}
}

func TestNomadRefusesInterpolation(t *testing.T) {
	dir := testsupport.WriteTree(t, map[string]string{"spec.hcl": `launch "a" {
  command = ["sleep", "$${HOME}"]
}`})
	_, err := Render(t.Context(), load(t, dir, "a"), Options{Engine: Nomad})
	if err == nil || !strings.Contains(err.Error(), "nomad cannot express command[1]: Nomad interpolates") {
		t.Fatalf("err = %v", err)
	}
}

func TestDecodeNomadIsStrict(t *testing.T) {
	src := "job \"a\" {\n  group \"g\" {\n    task \"t\" {\n      drivr = \"exec\"\n    }\n  }\n}\n"
	f, _ := hclsyntax.ParseConfig([]byte(src), "x.hcl", hcl.InitialPos)
	c, _ := f.Body.Content(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "job", LabelNames: []string{"id"}}}})
	if err := decodeTagged(c.Blocks[0].Body, reflect.ValueOf(&api.Job{}).Elem()); err == nil || !strings.Contains(err.Error(), "drivr") {
		t.Fatalf("a misspelt attribute decoded: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }
