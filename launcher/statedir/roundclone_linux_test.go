package statedir

import (
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// fillAll sets every field reachable from v (a settable value): each
// pointer, slice and map non-nil with one element, each string, number
// and bool not zero. A time.Time is set to a fixed instant.
func fillAll(t *testing.T, v reflect.Value) {
	t.Helper()
	if v.Type() == reflect.TypeFor[time.Time]() {
		v.Set(reflect.ValueOf(time.Date(2026, 12, 6, 5, 0, 0, 1, time.UTC)))
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillAll(t, v.Elem())
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fillAll(t, v.Index(0))
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fillAll(t, k)
		fillAll(t, e)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				t.Fatalf("%s has an unexported field %s: fillAll cannot set it", v.Type(), v.Type().Field(i).Name)
			}
			fillAll(t, v.Field(i))
		}
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint64, reflect.Uint32:
		v.SetUint(1)
	case reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Bool:
		v.SetBool(true)
	default:
		t.Fatalf("fillAll: a %s (%s)", v.Kind(), v.Type())
	}
}

// shared names the first slice, map or pointer a and b share, "" when
// none: a and b are of one type.
func shared(a, b reflect.Value, path string) string {
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		return shared(a.Elem(), b.Elem(), path)
	case reflect.Slice:
		if a.Len() > 0 && b.Len() > 0 && a.Index(0).Addr().Pointer() == b.Index(0).Addr().Pointer() {
			return path
		}
		for i := range min(a.Len(), b.Len()) {
			if p := shared(a.Index(i), b.Index(i), path+"[i]"); p != "" {
				return p
			}
		}
	case reflect.Map:
		if !a.IsNil() && a.UnsafePointer() == b.UnsafePointer() {
			return path
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if p := shared(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); p != "" {
				return p
			}
		}
	}
	return ""
}

// TestRoundCloneShares: a clone of a round with every field set equals
// it and shares none of its slices, maps or pointers (the round a Store
// keeps of what it wrote is never changed through a round it handed
// out). A field added to Round or its parts that clone does not copy
// fails here.
func TestRoundCloneShares(t *testing.T) {
	var r Round
	fillAll(t, reflect.ValueOf(&r).Elem())
	c := r.clone()
	if d := cmp.Diff(&r, c); d != "" {
		t.Errorf("clone (-round +clone):\n%s", d)
	}
	if p := shared(reflect.ValueOf(r), reflect.ValueOf(*c), "Round"); p != "" {
		t.Errorf("the clone shares %s with the round", p)
	}
	// Nil stays nil and empty stays empty (a non-omitempty slice is
	// "null" or "[]" in the file).
	e := Round{Delta: RoundDelta{Set: []Override{}}, Overrides: nil}
	if c := e.clone(); c.Delta.Set == nil || c.Overrides != nil || c.Delta.Unset != nil {
		t.Errorf("clone of empty and nil slices: %#v", c)
	}
}

// TestLoadRoundWrittenIsOwn: LoadRound of a round this Store wrote reads
// back as the file decodes, whatever the writer changes in its round
// afterwards and whatever a caller changes in the round LoadRound handed
// it.
func TestLoadRoundWrittenIsOwn(t *testing.T) {
	st, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var r Round
	fillAll(t, reflect.ValueOf(&r).Elem())
	r.N, r.Name, r.MAC = 3, "srv", ""
	r.Overrides[0].EnvFile.AfterLines = []string{"a\xffb"} // invalid UTF-8: settled by a round trip
	if err := st.SaveRound(&r, false); err != nil {
		t.Fatal(err)
	}
	fromFile := func() *Round {
		b, err := os.ReadFile(st.RoundPath("srv", 3))
		if err != nil {
			t.Fatal(err)
		}
		want, err := st.parseRound("srv", 3, b)
		if err != nil {
			t.Fatal(err)
		}
		return want
	}
	want := fromFile()
	// The writer changes its round after the write: the file does not.
	r.WorkerEnv["x"] = "changed"
	r.End.ExitStatus = new(int)
	r.Overrides[0].EnvFile.AfterLines[0] = "changed"
	got, err := st.LoadRound("srv", 3)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("LoadRound of what it wrote (-parseRound +LoadRound):\n%s", d)
	}
	// A caller changes what LoadRound gave it: the next LoadRound does
	// not see it.
	got.WorkerEnv["x"] = "changed"
	got.End.StoppedBy = "changed"
	*got.Overrides[0].Value = "changed"
	again, err := st.LoadRound("srv", 3)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, again, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("LoadRound after a caller changed its round (-parseRound +LoadRound):\n%s", d)
	}
	// An update under the lock writes and reads back what it set.
	if err := st.UpdateRound("srv", 3, func(r *Round) bool {
		r.End.StoppedBy = "stop"
		return true
	}); err != nil {
		t.Fatal(err)
	}
	after, err := st.LoadRound("srv", 3)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(fromFile(), after, cmpopts.EquateEmpty()); d != "" || after.End.StoppedBy != "stop" {
		t.Errorf("LoadRound after UpdateRound (-parseRound +LoadRound):\n%s", d)
	}
}
