package plugins

import (
	"reflect"

	"github.com/dop251/goja"
)

// The operators that join strings, as the rewritten source calls them (source.go): `+`, `+=`
// and template literals. Each does what the standard says the operator does (the same
// conversions, in the same order, running the same script code), except that a string it
// would make of more than maxString characters is a RangeError, and the string is charged to
// the run's heap limit before it is made.

var int64Type = reflect.TypeOf(int64(0))

// add is `a + b`.
func (s *sandbox) add(call goja.FunctionCall) goja.Value {
	return s.plus(call.Argument(0), call.Argument(1))
}

// plus is the standard's ApplyStringOrNumericBinaryOperator for +: both operands to
// primitives (hint default), then strings joined if either is one, numbers added otherwise.
func (s *sandbox) plus(a, b goja.Value) goja.Value {
	a, b = s.toPrimitive(a), s.toPrimitive(b)
	as, aStr := a.(goja.String)
	bs, bStr := b.(goja.String)
	if aStr || bStr {
		if !aStr {
			as = s.toStr(a)
		}
		if !bStr {
			bs = s.toStr(b)
		}
		s.checkString("+", as.Length()+bs.Length())
		return as.Concat(bs)
	}
	if a.ExportType() == int64Type && b.ExportType() == int64Type {
		return s.vm.ToValue(a.ToInteger() + b.ToInteger())
	}
	return s.vm.ToValue(a.ToFloat() + b.ToFloat())
}

// checkString refuses a string of n characters over maxString and charges one under it.
func (s *sandbox) checkString(what string, n int) {
	if n > maxString {
		s.throwRange("%s: the string would be %d characters; the limit is %d", what, n, maxString)
	}
	s.chargeString(what, n)
}

// toPrimitive is the standard's ToPrimitive with the hint default (what + asks for): an
// object's Symbol.toPrimitive, else its valueOf, else its toString.
func (s *sandbox) toPrimitive(v goja.Value) goja.Value {
	o, ok := v.(*goja.Object)
	if !ok {
		return v
	}
	if ex := o.GetSymbol(goja.SymToPrimitive); ex != nil && !goja.IsUndefined(ex) && !goja.IsNull(ex) {
		fn, ok := goja.AssertFunction(ex)
		if !ok {
			panic(s.vm.NewTypeError("Symbol.toPrimitive is not a function"))
		}
		r, err := fn(o, s.vm.ToValue("default"))
		if err != nil {
			panic(err)
		}
		if _, obj := r.(*goja.Object); obj {
			panic(s.vm.NewTypeError("Cannot convert object to primitive value"))
		}
		return r
	}
	for _, name := range []string{"valueOf", "toString"} {
		if fn, ok := goja.AssertFunction(o.Get(name)); ok {
			r, err := fn(o)
			if err != nil {
				panic(err)
			}
			if _, obj := r.(*goja.Object); !obj {
				return r
			}
		}
	}
	panic(s.vm.NewTypeError("Cannot convert object to primitive value"))
}

// addTo is `o[key] += v` (and `o.name += v`): o and key are evaluated once, before v (the
// standard reads o[key] before it evaluates v; the value read is the same unless evaluating
// v changes it), and the result is assigned and returned. Assigning to a property that cannot
// be assigned is a TypeError, as in strict mode; to a property of a string, a number or a
// boolean, nothing, as in sloppy mode (its wrapper object is thrown away).
func (s *sandbox) addTo(call goja.FunctionCall) goja.Value {
	target, key, v := call.Argument(0), call.Argument(1), call.Argument(2)
	if goja.IsUndefined(target) || goja.IsNull(target) {
		panic(s.vm.NewTypeError("Cannot read properties of %s", target))
	}
	_, isObject := target.(*goja.Object)
	o := target.ToObject(s.vm)
	var get func() goja.Value
	var set func(goja.Value) error
	if sym, ok := key.(*goja.Symbol); ok {
		get, set = func() goja.Value { return o.GetSymbol(sym) }, func(v goja.Value) error { return o.SetSymbol(sym, v) }
	} else {
		name := s.toStr(key).String() // converted once
		get, set = func() goja.Value { return o.Get(name) }, func(v goja.Value) error { return o.Set(name, v) }
	}
	cur := get()
	if cur == nil {
		cur = goja.Undefined()
	}
	r := s.plus(cur, v)
	if err := set(r); err != nil && isObject {
		panic(err)
	}
	return r
}

// template is an untagged template literal: its texts and the string values of its
// expressions (ToString, in order), joined.
func (s *sandbox) template(call goja.FunctionCall) goja.Value {
	out := stringParts{s: s, what: "a template literal"}
	for _, a := range call.Arguments {
		out.add(s.toStr(a)) // the texts are strings already; the values are converted
	}
	return out.String()
}
