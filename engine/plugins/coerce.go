package plugins

import (
	"math"
	"reflect"

	"github.com/dop251/goja"
)

// Converting a value the script made (an object's toString or valueOf, a getter, a Proxy's
// trap) runs the script's code, which may answer differently each time it is asked. A check
// that converted a value and then handed the original object to the built-in, which converts
// it again, checked one answer and let the built-in act on another ('x'.repeat(n) with an n
// whose valueOf says 1 to the check and 4e6 after). So the checks of the string built-ins
// convert this and the arguments they measure once, here, and pass the primitives on: the
// built-in then does exactly what was checked, and the script's code has run once, as the
// standard says it runs.

// thisString converts the call's this to a primitive string, in place; ok is false for
// undefined and null, which the built-in refuses with its own TypeError.
func (s *sandbox) thisString(call *goja.FunctionCall) (str goja.String, ok bool) {
	if goja.IsUndefined(call.This) || goja.IsNull(call.This) {
		return nil, false
	}
	v := s.toStr(call.This)
	call.This = v
	return v, true
}

// argString converts argument i to a primitive string, in place; ok is false when it is
// missing or undefined (which the built-ins read as "not given", not as "undefined").
func (s *sandbox) argString(call *goja.FunctionCall, i int) (str goja.String, ok bool) {
	if i >= len(call.Arguments) || goja.IsUndefined(call.Arguments[i]) {
		return nil, false
	}
	v := s.toStr(call.Arguments[i])
	call.Arguments[i] = v
	return v, true
}

// argNumber converts argument i to a primitive number, in place (NaN when it is missing, which
// every check here lets through: the built-in reads it as 0). Use it where the built-in
// converts the argument to a number whether it is given or not.
func (s *sandbox) argNumber(call *goja.FunctionCall, i int) float64 {
	if i >= len(call.Arguments) {
		return math.NaN()
	}
	v := call.Arguments[i].ToNumber()
	call.Arguments[i] = v
	return v.ToFloat()
}

// setArg sets argument i, adding undefined arguments before it if the call had fewer.
func setArg(call *goja.FunctionCall, i int, v goja.Value) {
	for len(call.Arguments) <= i {
		call.Arguments = append(call.Arguments, goja.Undefined())
	}
	call.Arguments[i] = v
}

// isRegExp reports whether v is a regular expression of the runtime (not a Proxy of one).
func isRegExp(v goja.Value) bool {
	o, ok := v.(*goja.Object)
	return ok && !isProxy(o) && o.ClassName() == "RegExp"
}

// primitiveArgs converts the arguments at the given positions that are objects to numbers, in
// place. Primitives stay as they are (an undefined argument still means "not given"): only an
// object's conversion runs the script's code.
func primitiveArgs(call *goja.FunctionCall, positions ...int) {
	for _, i := range positions {
		if i < len(call.Arguments) {
			if _, ok := call.Arguments[i].(*goja.Object); ok {
				call.Arguments[i] = call.Arguments[i].ToNumber()
			}
		}
	}
}

var proxyType = reflect.TypeOf(goja.Proxy{})

// isProxy reports whether o is a Proxy, whose every property read runs the script's traps.
func isProxy(o *goja.Object) bool { return o.ExportType() == proxyType }

// maxProtoDepth bounds the prototype chains dataProperty walks.
const maxProtoDepth = 1000

// dataProperty is the value of o's property key (a name or a symbol) when reading it runs none
// of the script's code: it is a data property of o or of one of its prototypes, none of them a
// Proxy, and its value is not an object (whose conversion would run code); undefined when it is
// nowhere. Then what a check reads is what the built-in reads right after it. Otherwise it
// throws a TypeError: a getter or a Proxy could answer the check one thing and the built-in
// another.
func (s *sandbox) dataProperty(what string, o *goja.Object, key goja.Value) goja.Value {
	depth := 0
	for p := o; p != nil; p = p.Prototype() {
		if depth++; depth > maxProtoDepth {
			panic(s.vm.NewTypeError("%s: the object's prototype chain is deeper than %d", what, maxProtoDepth))
		}
		if isProxy(p) {
			panic(s.vm.NewTypeError("%s: plugins do not pass a Proxy here", what))
		}
		d, err := s.ownDescriptor(goja.Undefined(), p, key)
		if err != nil {
			panic(err)
		}
		if goja.IsUndefined(d) {
			continue
		}
		desc := d.ToObject(s.vm)
		for _, k := range desc.Keys() {
			if k == "get" || k == "set" {
				panic(s.vm.NewTypeError("%s: plugins do not pass an object whose %s is a getter here", what, key))
			}
		}
		v := desc.Get("value")
		if _, ok := v.(*goja.Object); ok {
			panic(s.vm.NewTypeError("%s: plugins do not pass an object whose %s is an object here", what, key))
		}
		return v
	}
	return goja.Undefined()
}
