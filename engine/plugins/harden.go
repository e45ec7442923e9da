package plugins

import (
	_ "embed"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/dlclark/regexp2/v2"
	"github.com/dop251/goja"
)

// The hardening of a plugin's runtime. goja checks Interrupt between instructions, so a script
// is stopped at its time limit, and the heap watchdog stops one that grows the heap; but a
// built-in function written in Go runs to its end however long it takes, and some let a tiny
// script ask for a huge amount of work or memory in one step (`'x'.repeat(1e9)`,
// `Array(1e9).join()`, `[...Array(1e9)]`, `new ArrayBuffer(1e9)`, `1n << 10000000000n`, a
// regular expression that backtracks forever). Each such amplifier is removed or bounded here,
// and the checks say which limit was hit in a RangeError the plugin can catch:
//
//   - removed: eval and the Function constructors (code from strings would escape the checks
//     of the source; see source.go), BigInt, ArrayBuffer, SharedArrayBuffer, DataView and the
//     typed arrays (binary buffers allocated at once; a plugin has no binary data);
//   - bounded: the built-ins that loop over an array-like's length or a string's characters
//     refuse more than maxElements of them; the ones that build a string refuse a result of
//     more than maxString characters; apply refuses more than maxArgs arguments;
//     JSON.parse refuses input nested deeper than maxDepth or with more than maxElements values;
//   - rewritten in JavaScript (prelude.js): JSON.stringify, Array.prototype.flat and flatMap,
//     whose native code walks whatever nesting the script built;
//   - regular expressions that need backtracking (regexp2) time out after the hook limit.
//
// What is left is bounded by time and the heap watchdog, and a native step that still ran
// past its deadline is abandoned (limits.go).

const (
	// maxElements bounds the array-likes and strings the built-ins walk element by element.
	maxElements = 1 << 17
	// maxString bounds, in UTF-16 code units, the strings the built-ins build.
	maxString = 1 << 22
	// maxArgs bounds the arguments of apply, Reflect.apply and Reflect.construct.
	maxArgs = 1 << 16
	// maxPattern bounds the source of a regular expression made from a string (a literal is
	// bounded by the source's 256 KB).
	maxPattern = maxElements
	// longNeedle is the length from which indexOf, lastIndexOf and includes look for a string
	// in JavaScript; sortBudget bounds the characters the default order of sort compares in
	// one sort.
	longNeedle = 1024
	sortBudget = 1 << 26
	// maxDepth bounds the nesting of JSON.
	maxDepth = 64
	// regexpTimeout bounds one match of a backtracking regular expression.
	regexpTimeout = 500 * time.Millisecond
)

//go:embed prelude.js
var preludeSource string

// prelude is compiled when the first plugin runs, not at start: compiling it there ran goja's
// parser and compiler in every server, touching their pages of the binary (idle RSS) in one
// that has no plugin.
// It is rewritten as plugins are (source.go), so that its own `+` is bounded too: its stringify
// and replacement functions join strings the script gave them.
var prelude = sync.OnceValue(func() *goja.Program {
	p, err := compileAs("hearth-prelude.js", preludeSource, true)
	if err != nil {
		panic(err)
	}
	return p
})

// regexp2's timeout is a package variable read when a pattern is compiled; only goja uses
// regexp2 in Hearth. It is set once, before the first runtime exists.
var regexpOnce sync.Once

func boundRegexps() { regexpOnce.Do(func() { regexp2.DefaultMatchTimeout = regexpTimeout }) }

// removedGlobals are deleted from every plugin's global object.
var removedGlobals = []string{
	"eval", "Function", "BigInt", "ArrayBuffer", "SharedArrayBuffer", "DataView", "Atomics",
	"Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array",
	"Uint32Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array",
	"WeakRef", "FinalizationRegistry",
}

// sandbox is a hardened runtime and what the host needs of it.
type sandbox struct {
	vm *goja.Runtime
	// The error constructors as they were before any script ran.
	rangeError, errorCtor goja.Value
	// stringify and parse are the hardened JSON functions, kept apart from the global JSON
	// object, which the plugin may change.
	stringify, parse goja.Callable
	// ownDescriptor is Object.getOwnPropertyDescriptor as it was before any script ran;
	// substitution is the prelude's maker of replacement functions (checkReplace).
	ownDescriptor, substitution goja.Callable
	// meter is the heap limit of the run under way (limits.go).
	meter meter
}

// charge charges a step that may allocate up to n bytes to the run's heap limit, before it
// allocates: past the limit it throws (and the run is interrupted, see meter.charge).
func (s *sandbox) charge(what string, n uint64) {
	if !s.meter.charge(n) {
		s.throwRange("%s: the run used more than %d MB of memory", what, s.meter.limit>>20)
	}
}

// chargeString charges a string of n UTF-16 code units about to be made (two bytes each: a
// string of ASCII takes one, and the bound is an upper one).
func (s *sandbox) chargeString(what string, n int) { s.charge(what, uint64(n)*2) }

// chargeElements charges an array of n elements about to be made.
func (s *sandbox) chargeElements(what string, n float64) { s.charge(what, uint64(n)*16) }

// newSandbox makes a runtime with the hardening applied and maxStack as its call stack limit.
func newSandbox(maxStack int) (*sandbox, error) {
	boundRegexps()
	vm := goja.New()
	vm.SetMaxCallStackSize(maxStack)
	s := &sandbox{vm: vm, rangeError: vm.Get("RangeError"), errorCtor: vm.Get("Error")}
	if err := s.harden(); err != nil {
		return nil, fmt.Errorf("harden the runtime: %w", err)
	}
	return s, nil
}

// throwRange throws a RangeError from a native function.
func (s *sandbox) throwRange(format string, args ...any) {
	o, err := s.vm.New(s.rangeError, s.vm.ToValue(fmt.Sprintf(format, args...)))
	if err != nil {
		panic(err)
	}
	panic(o)
}

func (s *sandbox) harden() (err error) {
	defer func() {
		// goja reports a failure of its own API as a panic.
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	vm := s.vm
	global := vm.GlobalObject()
	jsonObj := vm.Get("JSON").ToObject(vm)
	origStringify := mustFunc(jsonObj.Get("stringify"))
	origParse := mustFunc(jsonObj.Get("parse"))
	s.ownDescriptor = mustFunc(vm.Get("Object").ToObject(vm).Get("getOwnPropertyDescriptor"))

	// The constructors of functions made from strings, reachable from any function.
	noCode := vm.ToValue(func(goja.FunctionCall) goja.Value {
		panic(vm.NewTypeError("functions cannot be made from strings in a plugin"))
	})
	for _, src := range []string{"(function(){})", "(function*(){})", "(async function(){})", "(async function*(){})"} {
		fn, err := vm.RunString(src)
		if err != nil {
			continue // a kind of function this goja does not have
		}
		proto := fn.ToObject(vm).Prototype()
		if err := proto.DefineDataProperty("constructor", noCode, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
			return err
		}
	}
	for _, name := range removedGlobals {
		if err := global.Delete(name); err != nil {
			return err
		}
	}

	if err := s.installGuard(); err != nil {
		return err
	}
	s.boundArrays()
	s.boundStrings()
	s.boundRegExps()
	s.boundObjects()
	s.boundCalls()

	// JSON: parse checks its input first; stringify, flat and flatMap come from the prelude.
	quote := func(call goja.FunctionCall) goja.Value {
		if str, ok := call.Argument(0).(goja.String); ok {
			s.checkString("JSON.stringify", quotedLen(str))
		}
		v, err := origStringify(goja.Undefined(), call.Argument(0))
		if err != nil {
			panic(err)
		}
		return v
	}
	regexpProto := vm.Get("RegExp").ToObject(vm).Get("prototype").ToObject(vm)
	nativeExec := mustFunc(regexpProto.Get("exec"))
	helpers := vm.NewObject()
	must(helpers.Set("quote", quote))
	must(helpers.Set("RegExp", vm.Get("RegExp")))
	must(helpers.Set("isRegExp", func(call goja.FunctionCall) goja.Value { return vm.ToValue(isRegExp(call.Argument(0))) }))
	must(helpers.Set("toStr", func(call goja.FunctionCall) goja.Value { return s.toStr(call.Argument(0)) }))
	must(helpers.Set("maxPattern", maxPattern))
	must(helpers.Set("exec", func(call goja.FunctionCall) goja.Value {
		s.checkCaptures(call.Argument(0), call.Argument(1))
		v, err := nativeExec(call.Argument(0), call.Argument(1))
		if err != nil {
			panic(err)
		}
		return v
	}))
	must(helpers.Set("maxDepth", maxDepth))
	fn, err := vm.RunProgram(prelude())
	if err != nil {
		return err
	}
	made, err := mustFunc(fn)(goja.Undefined(), helpers)
	if err != nil {
		return err
	}
	m := made.ToObject(vm)
	arrayProto := vm.Get("Array").ToObject(vm).Get("prototype").ToObject(vm)
	s.wrapValue(arrayProto, "flat", m.Get("flat"), lengthOfThis(s))
	s.wrapValue(arrayProto, "flatMap", m.Get("flatMap"), lengthOfThis(s))
	s.stringify = mustFunc(m.Get("stringify"))
	s.substitution = mustFunc(m.Get("substitution"))
	// exec written in JavaScript: goja then runs replace, match, matchAll and split of every
	// regular expression as the standard writes them, one exec call per match, where its own
	// loop found all matches in one native step. Matches that each scan the rest of the string
	// (/x*y|x/g, /(?=(x*))/g on a long string) made that step quadratic: seconds to minutes
	// that no limit could stop. One call of JavaScript per match is where the time limit does.
	must(regexpProto.DefineDataProperty("exec", m.Get("exec"), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE))
	// indexOf, lastIndexOf and includes of a long string compare it with each element in one
	// native loop, up to its length each time: they are the prelude's, in JavaScript, then.
	for _, name := range []string{"indexOf", "lastIndexOf", "includes"} {
		native, inJS := mustFunc(arrayProto.Get(name)), mustFunc(m.Get(name))
		byLength := lengthOfThis(s)
		must(arrayProto.DefineDataProperty(name, vm.ToValue(func(call goja.FunctionCall) goja.Value {
			fn := native
			if str, ok := call.Argument(0).(goja.String); ok && str.Length() > longNeedle {
				primitiveArgs(&call, 1)
				byLength(&call)
				fn = inJS
			}
			v, err := fn(call.This, call.Arguments...)
			if err != nil {
				panic(err)
			}
			return v
		}), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE))
	}
	// The other ways a string becomes a pattern: RegExp (the prelude's), compile, and match,
	// matchAll and search of a string that is not a regular expression.
	must(global.DefineDataProperty("RegExp", m.Get("RegExp"), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE))
	s.wrap(regexpProto, "compile", func(call *goja.FunctionCall) { s.checkPattern("compile", call) })
	stringProto := vm.Get("String").ToObject(vm).Get("prototype").ToObject(vm)
	s.wrap(stringProto, "search", func(call *goja.FunctionCall) { s.checkPattern("search", call) })
	must(jsonObj.DefineDataProperty("stringify", m.Get("stringify"), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE))
	parse := vm.ToValue(func(call goja.FunctionCall) goja.Value {
		values := s.checkJSON(call.Argument(0))
		if str, ok := call.Argument(0).(goja.String); ok {
			// Its strings (at most the text) and its values (a few hundred bytes an object).
			s.charge("JSON.parse", uint64(str.Length())*2+uint64(values)*256)
		}
		v, err := origParse(goja.Undefined(), call.Arguments...)
		if err != nil {
			panic(err)
		}
		return v
	})
	s.parse = mustFunc(parse)
	must(jsonObj.DefineDataProperty("parse", parse, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE))
	return nil
}

// checkJSON refuses JSON text nested deeper than maxDepth or with more than maxElements
// values: JSON.parse builds it natively, in one step. It returns how many values it counted.
func (s *sandbox) checkJSON(v goja.Value) int {
	str, ok := v.(goja.String)
	if !ok {
		return 0 // JSON.parse converts it and fails on anything but a string's text
	}
	if n := str.Length(); n > maxString {
		s.throwRange("JSON.parse: the text is %d characters; the limit is %d", n, maxString)
	}
	depth, values, inString, escaped := 0, 0, false, false
	for i, n := 0, str.Length(); i < n; i++ {
		c := str.CharAt(i)
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
			values++
			if depth > maxDepth {
				s.throwRange("JSON.parse: the text is nested deeper than %d levels", maxDepth)
			}
		case ']', '}':
			depth--
		case ',':
			values++
		}
		if values > maxElements {
			s.throwRange("JSON.parse: the text has more than %d values", maxElements)
		}
	}
	return values
}

// quotedLen is the length of a string quoted as JSON: escapes take 2 or 6 characters.
func quotedLen(str goja.String) int {
	n := 2
	for i, l := 0, str.Length(); i < l; i++ {
		switch c := str.CharAt(i); {
		case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
			n += 2
		case c < 0x20 || c >= 0xD800 && c <= 0xDFFF:
			n += 6 // \uXXXX (a lone surrogate too; a pair of them is less)
		default:
			n++
		}
	}
	return n
}

// checkCaptures bounds what one exec of a regular expression makes: each capture is a copy of
// part of the string (when it is not ASCII), so a match makes up to the groups plus one times
// the string's length in one step. That is refused past maxString characters and charged.
func (s *sandbox) checkCaptures(re, str goja.Value) {
	if !isRegExp(re) {
		return // exec refuses it
	}
	n := s.stringLen(str)
	if n < 0 {
		return // converted by exec: a number, a boolean, an object's short string
	}
	groups := 1 + countGroups(re.ToObject(s.vm).Get("source").String())
	if total := groups * n; total > maxString {
		s.throwRange("exec: the string is %d characters and the pattern has %d groups: a match could make %d characters; the limit is %d", n, groups-1, total, maxString)
	}
	// And the string as runes, which the matcher makes of it for each match.
	s.charge("exec", uint64(groups*n)*2+uint64(n)*4)
}

// countGroups counts the capturing groups of a pattern, or more: an opening parenthesis not
// escaped, not followed by ? unless it names its group (one in a character class counts too,
// which only overestimates).
func countGroups(src string) int {
	n := 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case '(':
			if i+1 < len(src) && src[i+1] == '?' && !(i+2 < len(src) && src[i+2] == '<' && i+3 < len(src) && src[i+3] != '=' && src[i+3] != '!') {
				continue
			}
			n++
		}
	}
	return n
}

// check looks at a call before the built-in runs and throws when it would exceed a limit. It
// may replace the call's this and arguments by the primitives it converted them to, so that
// the built-in gets what was checked (see coerce.go).
type check func(call *goja.FunctionCall)

// wrap replaces obj[name] with a function that checks the call, then calls the original.
func (s *sandbox) wrap(obj *goja.Object, name string, c check) {
	s.wrapValue(obj, name, obj.Get(name), c)
}

func (s *sandbox) wrapValue(obj *goja.Object, name string, orig goja.Value, c check) {
	must(obj.DefineDataProperty(name, s.checked(orig, c), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE))
}

func (s *sandbox) wrapSymbol(obj *goja.Object, sym *goja.Symbol, c check) {
	must(obj.DefineDataPropertySymbol(sym, s.checked(obj.GetSymbol(sym), c), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE))
}

func (s *sandbox) checked(orig goja.Value, c check) goja.Value {
	fn := mustFunc(orig)
	return s.vm.ToValue(func(call goja.FunctionCall) goja.Value {
		c(&call)
		v, err := fn(call.This, call.Arguments...)
		if err != nil {
			panic(err)
		}
		return v
	})
}

// lengthOf is ToLength(ToObject(v).length), or the length of a string, read so that the
// built-in reads the same: an array's or a String's own length, or a length that dataProperty
// can read without running the script's code (a getter or a Proxy is a TypeError).
func (s *sandbox) lengthOf(v goja.Value) float64 {
	if str, ok := v.(goja.String); ok {
		return float64(str.Length())
	}
	if goja.IsUndefined(v) || goja.IsNull(v) {
		return 0
	}
	o := v.ToObject(s.vm)
	var n goja.Value
	if c := o.ClassName(); !isProxy(o) && (c == "Array" || c == "String") {
		n = o.Get("length")
	} else {
		n = s.dataProperty("length", o, s.vm.ToValue("length"))
	}
	if n == nil {
		return 0
	}
	f := n.ToFloat()
	if math.IsNaN(f) || f < 0 {
		return 0
	}
	return math.Floor(f)
}

// stringLen is the length of a string, or of a String object; -1 for anything else.
func (s *sandbox) stringLen(v goja.Value) int {
	if str, ok := v.(goja.String); ok {
		return str.Length()
	}
	if o, ok := v.(*goja.Object); ok && o.ClassName() == "String" {
		return int(s.lengthOf(o))
	}
	return -1
}

// lengthOfThis bounds the array a built-in walks, and charges the array it may make of it
// (map, filter, slice...).
func lengthOfThis(s *sandbox) check {
	return func(call *goja.FunctionCall) {
		n := s.lengthOf(call.This)
		if n > maxElements {
			s.throwRange("the array has %.0f elements; plugins use at most %d", n, maxElements)
		}
		s.chargeElements("an array built-in", n)
	}
}

// stringWalk checks a string's length before a built-in walks its characters.
func (s *sandbox) stringWalk(what string, v goja.Value) {
	if n := s.stringLen(v); n > maxElements {
		s.throwRange("%s: the string is %d characters; it walks at most %d", what, n, maxElements)
	}
}

func (s *sandbox) boundArrays() {
	vm := s.vm
	array := vm.Get("Array").ToObject(vm)
	proto := array.Get("prototype").ToObject(vm)
	byLength := lengthOfThis(s)
	// Written in Go (builders.go): they put many values together in one loop.
	for name, fn := range map[string]func(goja.FunctionCall) goja.Value{
		"join": s.arrayJoin, "toLocaleString": s.arrayToLocaleString, "concat": s.arrayConcat,
	} {
		must(proto.DefineDataProperty(name, vm.ToValue(fn), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE))
	}
	for _, name := range arrayMethods {
		if v := proto.Get(name); v == nil || goja.IsUndefined(v) {
			continue
		}
		switch name {
		case "join", "toLocaleString", "concat":
			continue
		case "toString":
			continue // it calls this.join, which is bounded
		}
		// The arguments the built-in converts to numbers after it read the length: an
		// object's valueOf could change the length it loops to.
		numeric := numericArgs[name]
		c := func(call *goja.FunctionCall) {
			primitiveArgs(call, numeric...)
			byLength(call)
		}
		switch name {
		case "sort", "toSorted":
			c = func(call *goja.FunctionCall) {
				byLength(call)
				if goja.IsUndefined(call.Argument(0)) {
					setArg(call, 0, s.defaultSortOrder())
				}
			}
		case "push", "unshift", "splice":
			c = func(call *goja.FunctionCall) {
				primitiveArgs(call, numeric...)
				if n := s.lengthOf(call.This) + float64(len(call.Arguments)); n > maxElements {
					s.throwRange("%s: the array would have %.0f elements; plugins use at most %d", name, n, maxElements)
				}
			}
		}
		s.wrap(proto, name, c)
	}
	// The iterator of arrays is values itself.
	must(proto.DefineDataPropertySymbol(goja.SymIterator, proto.Get("values"), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE))
	s.wrap(array, "from", func(call *goja.FunctionCall) {
		items := call.Argument(0)
		if n := s.stringLen(items); n >= 0 {
			s.stringWalk("Array.from", items)
			return
		}
		if o, ok := items.(*goja.Object); ok {
			// Read as the built-in reads it next, and with no getter that could change the
			// length between the two reads.
			if it := s.dataProperty("Array.from", o, goja.SymIterator); goja.IsUndefined(it) || goja.IsNull(it) {
				if n := s.lengthOf(o); n > maxElements {
					s.throwRange("Array.from: the array-like has %.0f elements; plugins use at most %d", n, maxElements)
				}
			}
		}
	})
}

// numericArgs are the positions of the arguments each array method converts to a number.
var numericArgs = map[string][]int{
	"at": {0}, "copyWithin": {0, 1, 2}, "fill": {1, 2}, "includes": {1}, "indexOf": {1},
	"lastIndexOf": {1}, "slice": {0, 1}, "splice": {0, 1}, "toSpliced": {0, 1}, "with": {0},
}

// arrayMethods are the methods of Array.prototype that walk the array (every one but the
// constructor). flat and flatMap are replaced by the prelude's.
var arrayMethods = []string{
	"at", "concat", "copyWithin", "entries", "every", "fill", "filter", "find", "findIndex",
	"findLast", "findLastIndex", "forEach", "includes", "indexOf", "join", "keys", "lastIndexOf",
	"map", "pop", "push", "reduce", "reduceRight", "reverse", "shift", "slice", "some", "sort",
	"splice", "toLocaleString", "toReversed", "toSorted", "toSpliced", "toString", "unshift",
	"values", "with",
}

func (s *sandbox) boundStrings() {
	vm := s.vm
	str := vm.Get("String").ToObject(vm)
	proto := str.Get("prototype").ToObject(vm)
	// Each check converts this, and the arguments it measures, once (coerce.go).
	thisLen := func(call *goja.FunctionCall) float64 {
		str, ok := s.thisString(call)
		if !ok {
			return 0
		}
		return float64(str.Length())
	}
	s.wrap(proto, "repeat", func(call *goja.FunctionCall) {
		n := thisLen(call) * s.argNumber(call, 0)
		if n > maxString {
			s.throwRange("repeat: the result would be %.0f characters; the limit is %d", n, maxString)
		}
		if n > 0 {
			s.chargeString("repeat", int(n))
		}
	})
	for _, name := range []string{"padStart", "padEnd"} {
		s.wrap(proto, name, func(call *goja.FunctionCall) {
			thisLen(call)
			n := s.argNumber(call, 0)
			s.argString(call, 1)
			if n > maxString {
				s.throwRange("%s: the result would be %.0f characters; the limit is %d", name, n, maxString)
			}
			if n > 0 {
				s.chargeString(name, int(n))
			}
		})
	}
	// These make a string longer than the one they are given: up to 3 times for a change of
	// case, 18 times for a compatibility normalization (U+FDFA is 18 characters in NFKD), 4
	// for the others. The result is bounded by maxString and charged before it is made.
	for name, times := range map[string]float64{
		"toUpperCase": 3, "toLowerCase": 3, "toLocaleUpperCase": 3, "toLocaleLowerCase": 3, "normalize": 0,
	} {
		s.wrap(proto, name, func(call *goja.FunctionCall) {
			n := thisLen(call)
			grow := times
			if name == "normalize" {
				grow = 4
				if form, ok := s.argString(call, 0); ok && (form.String() == "NFKC" || form.String() == "NFKD") {
					grow = 18
				}
			}
			if n*grow > maxString {
				s.throwRange("%s: the string is %.0f characters; it takes at most %.0f (its result could be %.0f times as long; the limit is %d)", name, n, math.Floor(maxString/grow), grow, maxString)
			}
			s.chargeString(name, int(n*grow))
		})
	}
	for _, name := range []string{"replace", "replaceAll"} {
		s.wrap(proto, name, func(call *goja.FunctionCall) {
			length := thisLen(call)
			// How many times the search value can match: a string once for replace, and for
			// replaceAll once per its length (at every position when it is empty); a regular
			// expression at every position. Another object is converted to its string now.
			// (Another object's own Symbol.replace is not called: a plugin passes a string or a
			// regular expression.)
			matches := length + 1
			if !isRegExp(call.Argument(0)) {
				search := s.toStr(call.Argument(0))
				setArg(call, 0, search)
				switch {
				case name == "replace":
					matches = 1
				case search.Length() > 0:
					matches = 1 + math.Floor(length/float64(search.Length()))
				}
			}
			s.checkReplace(name, length, matches, call)
		})
	}
	s.wrap(proto, "split", func(call *goja.FunctionCall) {
		length := thisLen(call)
		if !isRegExp(call.Argument(0)) {
			s.argString(call, 0) // (as for replace, another object's Symbol.split is not called)
		}
		primitiveArgs(call, 1)
		s.checkSplit(length, call.Argument(0), call.Argument(1))
		s.chargeString("split", int(length))
	})
	for _, name := range []string{"match", "matchAll"} {
		s.wrap(proto, name, func(call *goja.FunctionCall) {
			if n := thisLen(call); n > maxElements {
				s.throwRange("%s: the string is %.0f characters; it matches in at most %d", name, n, maxElements)
			}
			s.checkPattern(name, call)
		})
	}
	s.wrapSymbol(proto, goja.SymIterator, func(call *goja.FunctionCall) {
		if n := thisLen(call); n > maxElements {
			s.throwRange("iterating a string of %.0f characters; the limit is %d", n, maxElements)
		}
	})
	// Written in Go (builders.go): they put many strings together in one loop.
	must(proto.DefineDataProperty("concat", vm.ToValue(s.stringConcat), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE))
	must(str.DefineDataProperty("raw", vm.ToValue(s.stringRaw), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE))
	global := vm.GlobalObject()
	// These make up to 9 characters of each one; their input is bounded so that the result is.
	for _, name := range []string{"encodeURI", "encodeURIComponent", "escape"} {
		s.wrap(global, name, func(call *goja.FunctionCall) {
			str, ok := s.argString(call, 0)
			if ok && str.Length() > maxString/9 {
				s.throwRange("%s: the string is %d characters; the limit is %d", name, str.Length(), maxString/9)
			}
			if ok {
				s.chargeString(name, 9*str.Length())
			}
		})
	}
}

// checkReplace bounds a replace of a string of length characters in which the search value
// can match up to matches times. More than maxElements matches are refused, as match refuses
// them (the built-in lists every match first, in one step). A replacement string is converted
// once and handed on as a function of the prelude that makes each substitution ($&, $1, $`,
// $'...) in JavaScript: the built-in makes the replacements in one native loop, where $` and
// $' (the text before and after the match) could each copy the whole string for every match,
// a result of length² characters no limit stopped; a function call for each match is where the
// time limit and the heap watchdog stop it.
func (s *sandbox) checkReplace(name string, length, matches float64, call *goja.FunctionCall) {
	if matches > maxElements+1 {
		s.throwRange("%s: the string is %.0f characters and could match %.0f times; the limit is %d", name, length, matches, maxElements)
	}
	if fn, ok := goja.AssertFunction(call.Argument(1)); ok {
		// The function's results are the script's own strings, made one call at a time; the
		// built-in joins them with the rest of the string in one step, so their total is
		// counted as they come, with all of the string as what the result keeps of it.
		total := length
		setArg(call, 1, s.vm.ToValue(func(c goja.FunctionCall) goja.Value {
			v, err := fn(c.This, c.Arguments...)
			if err != nil {
				panic(err)
			}
			str := s.toStr(v)
			if total += float64(str.Length()); total > maxString {
				s.throwRange("%s: the result would be more than %d characters; the limit is %d", name, maxString, maxString)
			}
			s.chargeString(name, str.Length())
			return str
		}))
		return
	}
	template := s.toStr(call.Argument(1))
	n := math.Min(length, matches) * float64(max(1, template.Length()))
	if n > maxString {
		s.throwRange("%s: the result could be %.0f characters; the limit is %d", name, n, maxString)
	}
	s.chargeString(name, int(n+length))
	fn, err := s.substitution(goja.Undefined(), template)
	if err != nil {
		panic(err)
	}
	setArg(call, 1, fn)
}

// checkPattern bounds a pattern given as a string (the first argument, when it is not a
// regular expression), converting it once: goja compiles it in one native step.
func (s *sandbox) checkPattern(name string, call *goja.FunctionCall) {
	if isRegExp(call.Argument(0)) {
		return
	}
	if str, ok := s.argString(call, 0); ok && str.Length() > maxPattern {
		s.throwRange("%s: the pattern is %d characters; the limit is %d", name, str.Length(), maxPattern)
	}
}

// checkSplit bounds the parts of a split: one per character at most (an empty separator or a
// pattern), one per separator otherwise, or the limit asked for.
func (s *sandbox) checkSplit(length float64, sep, limit goja.Value) {
	if !goja.IsUndefined(limit) && limit.ToFloat() <= maxElements {
		return
	}
	parts := length
	if str, ok := sep.(goja.String); ok && str.Length() > 0 {
		parts = length / float64(str.Length())
	}
	if parts > maxElements {
		s.throwRange("split: the string is %.0f characters and could make %.0f parts; the limit is %d", length, parts, maxElements)
	}
}

func (s *sandbox) boundRegExps() {
	vm := s.vm
	proto := vm.Get("RegExp").ToObject(vm).Get("prototype").ToObject(vm)
	// The string argument is converted once (coerce.go).
	strLen := func(call *goja.FunctionCall) float64 {
		if len(call.Arguments) == 0 {
			setArg(call, 0, goja.Undefined())
		}
		v := s.toStr(call.Arguments[0])
		call.Arguments[0] = v
		return float64(v.Length())
	}
	s.wrapSymbol(proto, goja.SymMatch, func(call *goja.FunctionCall) {
		if n := strLen(call); n > maxElements {
			s.throwRange("match: the string is %.0f characters; it matches in at most %d", n, maxElements)
		}
	})
	s.wrapSymbol(proto, goja.SymMatchAll, func(call *goja.FunctionCall) {
		if n := strLen(call); n > maxElements {
			s.throwRange("matchAll: the string is %.0f characters; it matches in at most %d", n, maxElements)
		}
	})
	s.wrapSymbol(proto, goja.SymReplace, func(call *goja.FunctionCall) {
		n := strLen(call)
		s.checkReplace("replace", n, n+1, call)
	})
	s.wrapSymbol(proto, goja.SymSplit, func(call *goja.FunctionCall) {
		n := strLen(call)
		primitiveArgs(call, 1)
		s.checkSplit(n, goja.Undefined(), call.Argument(1))
	})
}

// boundObjects bounds the functions that make one property per character of a string.
func (s *sandbox) boundObjects() {
	vm := s.vm
	object := vm.Get("Object").ToObject(vm)
	for _, name := range []string{"keys", "values", "entries", "getOwnPropertyNames", "getOwnPropertyDescriptors"} {
		s.wrap(object, name, func(call *goja.FunctionCall) { s.stringWalk("Object."+name, call.Argument(0)) })
	}
	s.wrap(object, "assign", func(call *goja.FunctionCall) {
		for _, a := range call.Arguments {
			s.stringWalk("Object.assign", a)
		}
	})
	reflect := vm.Get("Reflect").ToObject(vm)
	s.wrap(reflect, "ownKeys", func(call *goja.FunctionCall) { s.stringWalk("Reflect.ownKeys", call.Argument(0)) })
}

// boundCalls bounds the argument lists made from array-likes.
func (s *sandbox) boundCalls() {
	vm := s.vm
	args := func(what string, v goja.Value) {
		if goja.IsUndefined(v) || goja.IsNull(v) {
			return
		}
		if n := s.lengthOf(v); n > maxArgs {
			s.throwRange("%s: %.0f arguments; the limit is %d", what, n, maxArgs)
		}
	}
	fnProto := vm.Get("Object").ToObject(vm).Get("getPrototypeOf")
	getProto := mustFunc(fnProto)
	p, err := getProto(goja.Undefined(), vm.Get("Object"))
	must(err)
	functionProto := p.ToObject(vm)
	s.wrap(functionProto, "apply", func(call *goja.FunctionCall) { args("apply", call.Argument(1)) })
	reflect := vm.Get("Reflect").ToObject(vm)
	s.wrap(reflect, "apply", func(call *goja.FunctionCall) { args("Reflect.apply", call.Argument(2)) })
	s.wrap(reflect, "construct", func(call *goja.FunctionCall) { args("Reflect.construct", call.Argument(1)) })
}

func mustFunc(v goja.Value) goja.Callable {
	fn, ok := goja.AssertFunction(v)
	if !ok {
		panic(fmt.Sprintf("%v is not a function", v))
	}
	return fn
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
