package plugins

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// The rewritten `+`, `+=` and template literals do what the operators do: the same
// conversions, in the same order, the same results, for numbers, strings and objects.
func TestRewrittenOperatorsKeepTheirMeaning(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`1 + 2`, `3`},
		{`0.1 + 0.2`, `0.30000000000000004`},
		{`typeof (1 + 2)`, `number`},
		{`2 ** 53 + 2`, `9007199254740994`},
		{`'a' + 1`, `a1`},
		{`1 + 'a'`, `1a`},
		{`1 + 2 + 'a'`, `3a`},
		{`'a' + 1 + 2`, `a12`},
		{`true + 1`, `2`},
		{`null + 1`, `1`},
		{`undefined + 1`, `NaN`},
		{`[] + []`, ``},
		{`[1, 2] + 'x'`, `1,2x`},
		{`({}) + 'x'`, `[object Object]x`},
		{`({valueOf() { return 5 }}) + 1`, `6`},
		{`({valueOf() { return 5 }, toString() { return 'T' }}) + ''`, `5`},
		{"({valueOf() { return 5 }, toString() { return 'T' }}) + `${''}`", `5`},
		{"`${{valueOf() { return 5 }, toString() { return 'T' }}}`", `T`},
		{`({[Symbol.toPrimitive](hint) { return hint }}) + ''`, `default`},
		{"`${{[Symbol.toPrimitive](hint) { return hint }}}`", `string`},
		{`typeof (new Date(0) + 1)`, `string`},
		{`var order = []; ({valueOf() { order.push('a'); return 1 }}) + ({valueOf() { order.push('b'); return 2 }}); order.join()`, `a,b`},
		{`try { Symbol() + '' } catch (e) { e.constructor.name }`, `TypeError`},
		{`try { ({valueOf() { return {} }, toString() { return {} }}) + 1 } catch (e) { e.constructor.name }`, `TypeError`},
		{`var x = 1; x += 2; x`, `3`},
		{`var s = 'a'; s += 'b'; s += 1; s`, `ab1`},
		{`var o = {a: 'x'}; o.a += 'y'; o.a`, `xy`},
		{`var o = {a: 1}; var k = 'a'; o[k] += 2; o[k]`, `3`},
		{`var a = [1, 2]; var i = 0; a[i++] += 10; a.join() + ' ' + i`, `11,2 1`},
		{`var n = 0; var o = {get p() { n++; return 'g' }, set p(v) { this.q = v }}; o.p += 'h'; o.q + n`, `gh1`},
		{`var calls = 0; function obj() { calls++; return {a: 'x'} } obj().a += 'y'; calls`, `1`},
		{`var sym = Symbol(); var o = {[sym]: 'x'}; o[sym] += 'y'; o[sym]`, `xy`},
		{`var o = {a: 'x'}; var r = (o.a += 'y'); r`, `xy`},
		{`'abc'.length += 1`, `4`},
		{`class A { #s = 'a'; grow() { this.#s += 'b'; return this.#s } } new A().grow()`, `ab`},
		{`class A { get v() { return 'a' } set v(x) { this.w = x } } class B extends A { f() { super.v += 'b'; return this.w } } new B().f()`, `ab`},
		{`try { const c = 'a'; c += 'b' } catch (e) { e.constructor.name }`, `TypeError`},
		{"var x = 3; `a${x}b${x + 1}c`", `a3b4c`},
		{"`plain`", `plain`},
		{"`${1}${'2'}${null}${undefined}${true}`", `12nullundefinedtrue`},
		{"try { `${Symbol()}` } catch (e) { e.constructor.name }", `TypeError`},
		{"String.raw`a${1}\\n`", `a1\n`},
		{"(function (s) { return s.raw.join('|') })`a${1}b`", `a|b`},
		{`var t = 0; for (var i = 0; i < 1000; i++) t += i; t`, `499500`},
	} {
		v, err := runScript(t, c.src)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if got := v.String(); got != c.want {
			t.Errorf("%s = %q, want %q", c.src, got, c.want)
		}
	}
}

// The source that the rewriting cannot keep to its meaning is refused.
func TestSourceRefusals(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`with ({}) { 1 }`, "with statements are not available to plugins"},
		{`class A { #x = ''; f(g) { g().#x += 'y' } }`, "+= on a private field"},
	} {
		_, err := compile("test.js", c.src)
		var se *sourceError
		if !errors.As(err, &se) || !strings.Contains(se.msg, c.want) {
			t.Errorf("%s: got %v, want a refusal saying %q", c.src, err, c.want)
		}
	}
}

// Each way to join strings refuses a string over maxString with a RangeError the script can
// catch, before making it.
func TestStringJoinsAreBounded(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`let s = 'éé'; for (let i = 0; i < 40; i++) s = s + s`, "+: the string would be 8388608 characters"},
		{`let s = 'éé'; for (let i = 0; i < 40; i++) s += s`, "+: the string would be 8388608 characters"},
		{`const o = {s: 'éé'}; for (let i = 0; i < 40; i++) o.s += o.s`, "+: the string would be 8388608 characters"},
		{"let s = 'éé'; for (let i = 0; i < 40; i++) s = `${s}${s}`", "a template literal: the result would be more than"},
		{`'x'.repeat(3e6).toUpperCase()`, "toUpperCase: the string is 3000000 characters"},
		{`'x'.repeat(3e5).normalize('NFKD')`, "normalize: the string is 300000 characters"},
		{`/((((x))))/.exec('x'.repeat(1e6))`, "exec: the string is 1000000 characters and the pattern has 4 groups"},
		{`JSON.stringify('\u0001'.repeat(1e6))`, "JSON.stringify: the string would be 6000002 characters"},
		{`const big = 'x'.repeat(4e6); 'abab'.replace(/b/g, () => big)`, "replace: the result would be more than"},
	} {
		_, err := runScriptFor(t, c.src, 10*time.Second)
		if err == nil || !strings.Contains(err.Error(), "RangeError") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want a RangeError saying %q", c.src, err, c.want)
		}
	}
	// What stays under the limits works.
	v, err := runScript(t, `'é'.repeat(1e5).toUpperCase().length + ' ' + 'ﷺ'.normalize('NFKD').length + ' ' + /(x)(y)/.exec('axyb')[2]`)
	if err != nil || v.String() != "100000 18 y" {
		t.Fatalf("got %v, %v", v, err)
	}
}

// A run that keeps what it makes is stopped at the heap limit by the meter, on the step that
// would pass it (its time limit is a minute: the watchdog's sampling would stop it too, later).
func TestMeterStopsARunBeforeItPassesItsLimit(t *testing.T) {
	_, err := runScriptFor(t, `const keep = []; for (;;) keep.push('é'.repeat(4e6))`, time.Minute)
	var le *limitError
	if !errors.As(err, &le) || !strings.Contains(le.msg, "used more than 64 MB of memory") {
		t.Fatalf("got %v, want the memory limit", err)
	}
	// Catching the RangeError does not let the run go on: it is interrupted.
	_, err = runScriptFor(t, `const keep = []; for (;;) { try { keep.push('é'.repeat(4e6)) } catch (e) {} }`, time.Minute)
	if !errors.As(err, &le) || !strings.Contains(le.msg, "used more than 64 MB of memory") {
		t.Fatalf("got %v, want the memory limit", err)
	}
}
