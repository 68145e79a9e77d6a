package statedir

import (
	"encoding"
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// TestSealJSONIsStable: sealedLines and roundJSON skip the decode round
// trip unless the first encoding has a \ufffd (dea1e70, 93140b3), and a
// round read back is checked against the MAC of its encoding without
// that round trip. That holds while the only value JSON changes is
// invalid UTF-8 in a string: no field of a record or a round may hold an
// interface (a number in it decodes as a float64) or a type with a JSON
// or text encoding of its own (time.Time's keeps its value).
func TestSealJSONIsStable(t *testing.T) {
	marshalers := []reflect.Type{
		reflect.TypeFor[json.Marshaler](), reflect.TypeFor[json.Unmarshaler](),
		reflect.TypeFor[encoding.TextMarshaler](), reflect.TypeFor[encoding.TextUnmarshaler](),
	}
	seen := map[reflect.Type]bool{}
	var walk func(path string, ty reflect.Type)
	walk = func(path string, ty reflect.Type) {
		if seen[ty] || ty == reflect.TypeFor[time.Time]() {
			return
		}
		seen[ty] = true
		for _, m := range marshalers {
			if ty.Kind() != reflect.Pointer && (ty.Implements(m) || reflect.PointerTo(ty).Implements(m)) {
				t.Errorf("%s: %s implements %s", path, ty, m)
			}
		}
		switch ty.Kind() {
		case reflect.Interface:
			t.Errorf("%s: an interface (%s)", path, ty)
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(path+"[]", ty.Elem())
		case reflect.Map:
			walk(path+"{key}", ty.Key())
			walk(path+"{}", ty.Elem())
		case reflect.Struct:
			for i := range ty.NumField() {
				f := ty.Field(i)
				if f.IsExported() && f.Tag.Get("json") != "-" {
					walk(path+"."+f.Name, f.Type)
				}
			}
		}
	}
	walk("Record", reflect.TypeFor[Record]())
	walk("Round", reflect.TypeFor[Round]())
}
