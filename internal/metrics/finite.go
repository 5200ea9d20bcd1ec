package metrics

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// NonFiniteError says that a JSON file was written with null in place of numbers
// JSON cannot hold (NaN, infinities): whatever they came from slipped past the checks
// on input, and the figures are missing from the file, which holds all the rest.
type NonFiniteError struct {
	File string
	// Fields are the numbers' JSON paths with their values: "energy.windows[0].total.joules (+Inf)".
	Fields []string
}

func (e *NonFiniteError) Error() string {
	fields := e.Fields
	if len(fields) > 5 {
		fields = append(fields[:5:5], fmt.Sprintf("and %d more", len(e.Fields)-5))
	}
	return fmt.Sprintf("write %s: %s not a number JSON can hold: written as null, the rest of the file as it is",
		e.File, strings.Join(fields, ", "))
}

// marshalFinite is json.MarshalIndent (json.Marshal when !indent) that writes null
// for NaN and infinities rather than failing, which would lose the whole file (or
// line) for one number. Values of types with their own MarshalJSON or MarshalText are
// left to them. replaced lists the numbers written as null by JSON path; it is empty
// when v has none.
func marshalFinite(v any, indent bool) (data []byte, replaced []string, err error) {
	marshal := json.Marshal
	if indent {
		marshal = func(v any) ([]byte, error) { return json.MarshalIndent(v, "", "  ") }
	}
	data, err = marshal(v)
	var uve *json.UnsupportedValueError
	if err == nil || !errors.As(err, &uve) || v == nil {
		return data, nil, err
	}
	// json cannot write a float64 as null, so each non-finite number becomes a
	// sentinel in a copy of v, and the sentinel's text becomes null in the output.
	var w finiteWalk
	cp, changed := w.copy(reflect.ValueOf(v), "", 0)
	if !changed {
		if len(w.paths) > 0 {
			err = fmt.Errorf("%w (%s)", err, strings.Join(w.paths, ", "))
		}
		return nil, nil, err
	}
	out, merr := marshal(cp.Interface())
	if merr != nil {
		return nil, nil, fmt.Errorf("%w (%s)", err, strings.Join(w.paths, ", "))
	}
	n := 0
	for _, s := range sentinels {
		n += bytes.Count(out, s.text)
	}
	if n != len(w.paths) { // a text that spells a sentinel: too unlikely to handle
		return nil, nil, fmt.Errorf("%w (%s)", err, strings.Join(w.paths, ", "))
	}
	for _, s := range sentinels {
		out = bytes.ReplaceAll(out, s.text, []byte("null"))
	}
	return out, w.paths, nil
}

// sentinel stands in for non-finite numbers of one float size: a number no result
// holds, whose JSON text is found by encoding it.
type sentinel struct {
	value reflect.Value
	text  []byte
}

var sentinels = func() map[reflect.Kind]sentinel {
	m := map[reflect.Kind]sentinel{}
	for _, v := range []any{-1.2345678901234567e-300, float32(-1.2345678e-30)} {
		text, _ := json.Marshal(v)
		m[reflect.TypeOf(v).Kind()] = sentinel{reflect.ValueOf(v), text}
	}
	return m
}()

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// maxDepth bounds the walk: results are trees a few levels deep, and a cycle (which
// json cannot write either) must not recurse for ever.
const maxDepth = 64

// finiteWalk copies a value with its non-finite numbers replaced by sentinels,
// copying only what holds one, and notes their paths. A value reached through an
// unexported field (an embedded struct of an unexported type, whose exported fields
// json writes) can be read but not copied: its numbers are noted, not replaced, and
// the write fails naming them.
type finiteWalk struct {
	paths []string
}

// copy returns v, or a copy of it with sentinels and true when it holds a non-finite
// number it could replace.
func (w *finiteWalk) copy(v reflect.Value, path string, depth int) (reflect.Value, bool) {
	if !v.IsValid() || depth > maxDepth {
		return v, false
	}
	t := v.Type()
	if t.Implements(jsonMarshaler) || t.Implements(textMarshaler) ||
		reflect.PointerTo(t).Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(textMarshaler) {
		return v, false
	}
	fix := v.CanInterface()
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if !math.IsNaN(f) && !math.IsInf(f, 0) {
			return v, false
		}
		w.paths = append(w.paths, fmt.Sprintf("%s (%s)", strings.TrimPrefix(path, "."), strconv.FormatFloat(f, 'g', -1, 64)))
		return sentinels[v.Kind()].value.Convert(t), fix
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		e, changed := w.copy(v.Elem(), path, depth+1)
		if !changed || !fix {
			return v, false
		}
		if v.Kind() == reflect.Pointer {
			p := reflect.New(t.Elem())
			p.Elem().Set(e)
			return p, true
		}
		i := reflect.New(t).Elem()
		i.Set(e)
		return i, true
	case reflect.Struct:
		var cp reflect.Value
		for i := range t.NumField() {
			name, ok := jsonName(t.Field(i))
			if !ok {
				continue
			}
			fpath := path
			if name != "" {
				fpath += "." + name
			}
			f, changed := w.copy(v.Field(i), fpath, depth+1)
			if !changed || !fix {
				continue
			}
			if !cp.IsValid() {
				cp = reflect.New(t).Elem()
				cp.Set(v)
			}
			if cp.Field(i).CanSet() {
				cp.Field(i).Set(f)
			}
		}
		return cp, cp.IsValid()
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return v, false
		}
		var cp reflect.Value
		for i := range v.Len() {
			e, changed := w.copy(v.Index(i), fmt.Sprintf("%s[%d]", path, i), depth+1)
			if !changed || !fix {
				continue
			}
			if !cp.IsValid() {
				if v.Kind() == reflect.Slice {
					cp = reflect.MakeSlice(t, v.Len(), v.Len())
				} else {
					cp = reflect.New(t).Elem()
				}
				reflect.Copy(cp, v)
			}
			cp.Index(i).Set(e)
		}
		return cp, cp.IsValid()
	case reflect.Map:
		if v.IsNil() {
			return v, false
		}
		var cp reflect.Value
		iter := v.MapRange()
		for iter.Next() {
			e, changed := w.copy(iter.Value(), fmt.Sprintf("%s.%v", path, iter.Key()), depth+1)
			if !changed || !fix {
				continue
			}
			if !cp.IsValid() {
				cp = reflect.MakeMapWithSize(t, v.Len())
				for it := v.MapRange(); it.Next(); {
					cp.SetMapIndex(it.Key(), it.Value())
				}
			}
			cp.SetMapIndex(iter.Key(), e)
		}
		return cp, cp.IsValid()
	}
	return v, false
}

// jsonName is the name json writes a struct field under ("" for an embedded struct,
// whose fields json lifts into the parent's), and whether it writes it: exported
// fields and embedded ones, not those tagged "-".
func jsonName(sf reflect.StructField) (string, bool) {
	if !sf.IsExported() && !sf.Anonymous {
		return "", false
	}
	tag := sf.Tag.Get("json")
	if tag == "-" {
		return "", false
	}
	if name, _, _ := strings.Cut(tag, ","); name != "" {
		return name, true
	}
	if sf.Anonymous {
		return "", true
	}
	return sf.Name, true
}
