package plugins

import (
	"math"
	"strconv"

	"github.com/dop251/goja"
)

// The built-ins that put many values together in one native loop (join, concat, String.raw)
// are written here instead of bounded around goja's: goja's loops read each element and copy
// it with none of the script's instructions in between, so a script's code that runs inside
// them (an element's getter, a separator's toString, a Symbol.isConcatSpreadable getter) could
// grow what the check had measured before the loop went on (a length set to 2^32 - 1, elements
// swapped for 4 MB strings), and the time limit cannot stop a native loop. Here each value is
// read and converted once, the total is counted as it goes, and the result is built from what
// was counted: at most maxElements values, at most maxString characters.

// element reads o[i] (nil when o has no such property).
func element(o *goja.Object, i int64) goja.Value {
	return o.Get(strconv.FormatInt(i, 10))
}

// toLength is the standard's ToLength of a value already read.
func toLength(v goja.Value) float64 {
	if v == nil {
		return 0
	}
	f := v.ToFloat()
	if math.IsNaN(f) || f <= 0 {
		return 0
	}
	return math.Min(math.Floor(f), 1<<53-1)
}

// readLength reads o.length once and refuses more than maxElements.
func (s *sandbox) readLength(what string, o *goja.Object) int64 {
	n := toLength(o.Get("length"))
	if n > maxElements {
		s.throwRange("%s: the array has %.0f elements; plugins use at most %d", what, n, maxElements)
	}
	return int64(n)
}

// stringParts collects strings up to maxString characters in all.
type stringParts struct {
	s     *sandbox
	what  string
	parts []goja.String
	total int
}

func (p *stringParts) add(str goja.String) {
	p.total += str.Length()
	if p.total > maxString {
		p.s.throwRange("%s: the result would be more than %d characters; the limit is %d", p.what, maxString, maxString)
	}
	p.parts = append(p.parts, str)
}

func (p *stringParts) String() goja.Value {
	p.s.chargeString(p.what, p.total)
	var b goja.StringBuilder
	b.Grow(p.total)
	for _, str := range p.parts {
		b.WriteString(str)
	}
	return b.String()
}

// toStr is the standard's ToString: a Symbol is a TypeError.
func (s *sandbox) toStr(v goja.Value) goja.String {
	if _, ok := v.(*goja.Symbol); ok {
		panic(s.vm.NewTypeError("cannot convert a Symbol to a string"))
	}
	r := v.ToString() // a number's or a boolean's is itself, not yet a String
	if str, ok := r.(goja.String); ok {
		return str
	}
	return s.vm.ToValue(r.String()).(goja.String)
}

// thisObject is ToObject(this): a TypeError for undefined and null.
func (s *sandbox) thisObject(what string, this goja.Value) *goja.Object {
	if goja.IsUndefined(this) || goja.IsNull(this) {
		panic(s.vm.NewTypeError("%s called on null or undefined", what))
	}
	return this.ToObject(s.vm)
}

// arrayJoin is Array.prototype.join.
func (s *sandbox) arrayJoin(call goja.FunctionCall) goja.Value {
	o := s.thisObject("Array.prototype.join", call.This)
	n := s.readLength("join", o)
	sep := s.vm.ToValue(",").(goja.String)
	if a := call.Argument(0); !goja.IsUndefined(a) {
		sep = s.toStr(a)
	}
	out := stringParts{s: s, what: "join"}
	for i := int64(0); i < n; i++ {
		if i > 0 {
			out.add(sep)
		}
		if v := element(o, i); v != nil && !goja.IsUndefined(v) && !goja.IsNull(v) {
			out.add(s.toStr(v))
		}
	}
	return out.String()
}

// arrayToLocaleString is Array.prototype.toLocaleString: each element's toLocaleString,
// joined with commas.
func (s *sandbox) arrayToLocaleString(call goja.FunctionCall) goja.Value {
	o := s.thisObject("Array.prototype.toLocaleString", call.This)
	n := s.readLength("toLocaleString", o)
	sep := s.vm.ToValue(",").(goja.String)
	out := stringParts{s: s, what: "toLocaleString"}
	for i := int64(0); i < n; i++ {
		if i > 0 {
			out.add(sep)
		}
		v := element(o, i)
		if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
			continue
		}
		m, ok := goja.AssertFunction(v.ToObject(s.vm).Get("toLocaleString"))
		if !ok {
			panic(s.vm.NewTypeError("toLocaleString: element %d has no toLocaleString method", i))
		}
		r, err := m(v)
		if err != nil {
			panic(err)
		}
		out.add(s.toStr(r))
	}
	return out.String()
}

// arrayConcat is Array.prototype.concat (without species: the result is a plain array). An
// array-like is spread when its Symbol.isConcatSpreadable says so, or, when that is undefined,
// when it is an array; holes stay holes.
func (s *sandbox) arrayConcat(call goja.FunctionCall) goja.Value {
	o := s.thisObject("Array.prototype.concat", call.This)
	out := s.vm.NewArray()
	var n int64
	put := func(v goja.Value) {
		if n >= maxElements {
			s.throwRange("concat: the array would have more than %d elements; plugins use at most %d", maxElements, maxElements)
		}
		must(out.DefineDataProperty(strconv.FormatInt(n, 10), v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE))
		n++
	}
	items := append([]goja.Value{o}, call.Arguments...)
	for _, item := range items {
		e, isObj := item.(*goja.Object)
		spread := false
		if isObj {
			if sp := e.GetSymbol(goja.SymIsConcatSpreadable); sp != nil && !goja.IsUndefined(sp) {
				spread = sp.ToBoolean()
			} else {
				spread = e.ClassName() == "Array"
			}
		}
		if !spread {
			put(item)
			continue
		}
		length := toLength(e.Get("length"))
		if float64(n)+length > maxElements {
			s.throwRange("concat: the array would have %.0f elements; plugins use at most %d", float64(n)+length, maxElements)
		}
		s.chargeElements("concat", length)
		for i := int64(0); i < int64(length); i++ {
			if v := element(e, i); v != nil {
				put(v)
			} else {
				n++ // a hole
			}
		}
	}
	must(out.Set("length", n))
	return out
}

// stringConcat is String.prototype.concat.
func (s *sandbox) stringConcat(call goja.FunctionCall) goja.Value {
	if goja.IsUndefined(call.This) || goja.IsNull(call.This) {
		panic(s.vm.NewTypeError("String.prototype.concat called on null or undefined"))
	}
	if len(call.Arguments) > maxArgs {
		s.throwRange("concat: %d arguments; the limit is %d", len(call.Arguments), maxArgs)
	}
	out := stringParts{s: s, what: "concat"}
	out.add(s.toStr(call.This))
	for _, a := range call.Arguments {
		out.add(s.toStr(a))
	}
	return out.String()
}

// stringRaw is String.raw.
func (s *sandbox) stringRaw(call goja.FunctionCall) goja.Value {
	cooked := s.thisObject("String.raw", call.Argument(0))
	raw := s.thisObject("String.raw", cooked.Get("raw"))
	n := toLength(raw.Get("length"))
	if n > maxElements {
		s.throwRange("String.raw: %.0f parts; the limit is %d", n, maxElements)
	}
	out := stringParts{s: s, what: "String.raw"}
	for i := int64(0); i < int64(n); i++ {
		v := element(raw, i)
		if v == nil {
			v = goja.Undefined()
		}
		out.add(s.toStr(v))
		if i+1 < int64(n) && int(i+1) < len(call.Arguments) {
			out.add(s.toStr(call.Arguments[i+1]))
		}
	}
	return out.String()
}

// defaultSortOrder is the order sort uses without a comparison function (the elements as
// strings, by UTF-16 code units), as a function that counts the characters it compares: goja's
// own compared in one native loop, so a thousand 4 MB strings with a common prefix sorted for
// seconds (131,072 of them for minutes) where no limit could stop them. Past sortBudget
// characters in one sort it throws a RangeError.
func (s *sandbox) defaultSortOrder() goja.Value {
	spent := 0
	return s.vm.ToValue(func(call goja.FunctionCall) goja.Value {
		a, b := s.toStr(call.Argument(0)), s.toStr(call.Argument(1))
		n := min(a.Length(), b.Length())
		order := 0
		i := 0
		for ; i < n; i++ {
			if ca, cb := a.CharAt(i), b.CharAt(i); ca != cb {
				order = 1
				if ca < cb {
					order = -1
				}
				break
			}
		}
		if spent += i; spent > sortBudget {
			s.throwRange("sort: the elements compared more than %d characters; sort long strings with a comparison function", sortBudget)
		}
		if order == 0 && a.Length() != b.Length() {
			order = 1
			if a.Length() < b.Length() {
				order = -1
			}
		}
		return s.vm.ToValue(order)
	})
}
