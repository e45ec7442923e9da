package plugins

import (
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"
)

// The built-ins the sandbox converts arguments for, or writes in Go or JavaScript, answer as
// goja's own do, for what a plugin ordinarily passes them.
func TestReplacedBuiltinsAnswerAsGojaDoes(t *testing.T) {
	for _, src := range []string{
		// replace and replaceAll: every substitution of GetSubstitution.
		`'a-b-c'.replace('-', '+')`,
		`'a-b-c'.replaceAll('-', '+')`,
		`'a-b-c'.replace(/-/g, '[$&]')`,
		`'a-b-c'.replace(/-/, "[$\x60|$']")`,
		`'a-b-c'.replaceAll('-', "[$\x60|$']")`,
		`'2024-11-25'.replace(/(\d+)-(\d+)-(\d+)/, '$3/$2/$1')`,
		`'2024-11-25'.replace(/(?<y>\d+)-(?<m>\d+)-(?<d>\d+)/, '$<d>.$<m>.$<y> $<nope>|$<y')`,
		`'abc'.replace(/b/, '$<x>')`,
		`'abc'.replace(/(b)/, '$0 $1 $01 $10 $2 $$ $ $x')`,
		`'abcdefghijkl'.replace(/(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)(k)/, '$11-$10-$1-$011')`,
		`'abc'.replace(/(x)?b/, '[$1]')`,
		`'aaa'.replace(/a/g, '$')`,
		`'x'.replace('x', '$')`,
		`'abc'.replaceAll('', '-')`,
		`'abc'.replace('', "$'")`,
		`'abc'.replace(undefined, 'u')`,
		`'undefined!'.replace(undefined, 'u')`,
		`'a1b2'.replace(/\d/g, d => d * 2)`,
		`'a.b.c'.split('.').join('|')`,
		`'a1b2c3'.split(/\d/, 2).join('|')`,
		`'abc'.split('').length + 'abc'.split().length`,
		`'ab'.repeat(3) + '|' + 'x'.padStart(4, 'ab') + '|' + 'x'.padEnd(3) + '|'`,
		`'é'.repeat({valueOf() { return 2 }})`,
		// join, toString, toLocaleString
		`[1, null, undefined, 'a', [2, 3], {}].join()`,
		`[1, 2, 3].join('')`,
		`[1, 2, 3].join(undefined)`,
		`[1, 2].join({toString() { return ' & ' }})`,
		`Array.prototype.join.call({length: 3, 0: 'x', 2: 'z'}, '-')`,
		`Array.prototype.join.call('abc', '.')`,
		`String([1, [2, [3]]]) + ` + "`${[4, 5]}`",
		`[1234.5, 'a', null, new Date(0).getTime()].toLocaleString()`,
		// concat
		`JSON.stringify([1].concat(2, [3, [4]], 'x'))`,
		`var a = [1, , 3]; var c = a.concat([, 5]); c.length + ':' + (1 in c) + (3 in c) + (4 in c)`,
		`var s = {length: 2, 0: 'a', 1: 'b', [Symbol.isConcatSpreadable]: true}; JSON.stringify([0].concat(s))`,
		`var n = [1, 2]; n[Symbol.isConcatSpreadable] = false; [0].concat(n).length`,
		`JSON.stringify(Array.prototype.concat.call('ab', 'c'))`,
		`'a'.concat('b', 1, null, undefined, {})`,
		`String.raw` + "`a${1}b${2}c`",
		`String.raw({raw: ['x', 'y', 'z']}, 1)`,
		`String.raw({raw: 'abc'}, '-', '+', '*')`,
		`encodeURIComponent('a b&é') + encodeURI({toString() { return 'x y' }}) + escape('é')`,
		`[1, 2, 3, 4].slice({valueOf() { return 1 }}, 3).join()`,
		`[1, 2, 3].indexOf(3, {valueOf() { return 1 }})`,
		`Array.from({length: 3}, (_, i) => i * 2).join()`,
		`Math.max.apply(null, {length: 2, 0: 4, 1: 7})`,
		// Regular expressions, which run through exec (written in JavaScript).
		`JSON.stringify('a1b22c333'.match(/\d+/g))`,
		`JSON.stringify('a1b22'.match(/(\d)(\d)?/))`,
		`JSON.stringify([...'a1b22c333'.matchAll(/(?<d>\d)+/g)].map(m => [m[0], m.index, m.groups.d]))`,
		`JSON.stringify('a, b,c'.split(/\s*,\s*/))`,
		`JSON.stringify('a1b2c3'.split(/(\d)/, 4))`,
		`JSON.stringify('\u{1F600}x\u{1F600}'.split(/(?:)/u))`,
		`JSON.stringify('abc'.split(/(?:)/))`,
		`'xAx'.search(/a/i) + ':' + /a/y.test('ba') + ':' + /b/.exec('abc').index`,
		`var r = /a/g; r.exec('aa'); r.lastIndex + ':' + 'aXa'.replace(r, 'b') + ':' + r.lastIndex`,
		`var r = /a/y; r.lastIndex = 1; 'ba'.replace(r, 'c') + r.lastIndex`,
		`'\u{1F600}\u{1F600}'.replace(/(?:)/gu, '-')`,
		`'aaa'.replace(/a*?/g, '[$&]')`,
		// sort's default order (a Go function), and indexOf, lastIndexOf, includes of a long
		// string (JavaScript).
		`JSON.stringify([10, 9, 1, undefined, 'b', , 'a', null, 2].sort())`,
		`JSON.stringify(['\uFFFF', '\u{10000}', 'z', 'é', 'e\u0301', ''].sort())`,
		`JSON.stringify([3, 1, 2].sort(undefined)) + JSON.stringify([3, 1, 2].toSorted ? [3, 1, 2].toSorted() : [1, 2, 3])`,
		`JSON.stringify(Array.prototype.sort.call({length: 3, 0: 'c', 1: 'a', 2: 'b'}))`,
		`var L = 'q'.repeat(2000); var a = ['x', L, , L + 'r', L]; [a.indexOf(L), a.indexOf(L, 2), a.indexOf(L, -1), a.indexOf(L, -100), a.indexOf(L, 9), a.lastIndexOf(L), a.lastIndexOf(L, 3), a.lastIndexOf(L, -2), a.lastIndexOf(L, -9), a.includes(L), a.includes(L, 5), a.includes(L + 'z')].join()`,
		`var L = 'q'.repeat(2000); Array.prototype.indexOf.call({length: 2, 1: L}, L) + ':' + Array.prototype.includes.call('abc', L)`,
		`try { Array.prototype.includes.call(null, 'q'.repeat(2000)) } catch (e) { e.name }`,
		// RegExp (the prelude's, with its pattern bounded).
		`new RegExp('a+', 'g').test('caa') + ':' + RegExp('x').source + ':' + new RegExp().source`,
		`(RegExp('x') instanceof RegExp) + ':' + (/a/ instanceof RegExp) + ':' + (/a/.constructor === RegExp)`,
		`new RegExp(/a/g).flags + ':' + new RegExp(/a/g, 'i').flags + ':' + RegExp(/a/g, undefined).flags`,
		`var r = /a/; (RegExp(r) === r) + ':' + (new RegExp(r) === r)`,
		`class R extends RegExp {}; var x = new R('a', 'g'); (x instanceof R) + ':' + x.test('ba') + ':' + x.global`,
		`(RegExp.prototype.constructor === RegExp) + ':' + (RegExp[Symbol.species] === RegExp) + ':' + RegExp.name + RegExp.length`,
		`Object.prototype.toString.call(new RegExp('a')) + String(new RegExp('a/b', 'gi'))`,
		`'a-b'.split(new RegExp('-')).join() + ':' + 'abc'.search('b') + ':' + 'aXbX'.match('X').index`,
		`[...'a1b2'.matchAll('\\d')].length + ':' + (function () { var r = /a/; r.compile('b', 'g'); return r.source + r.flags })()`,
		`try { new RegExp('(') } catch (e) { e.name }`,
	} {
		plain := goja.New()
		want, err := plain.RunString(src)
		if err != nil {
			t.Fatalf("%s in goja: %v", src, err)
		}
		got, err := runScriptFor(t, src, time.Minute) // answers, not limits, are tested here
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if got.String() != want.String() {
			t.Errorf("%s = %q, goja says %q", src, got.String(), want.String())
		}
	}
}

// A script's code that runs while a built-in is checked (a toString, a valueOf, a getter, a
// Proxy's trap) cannot make the built-in do more than was checked: what was measured is what
// the built-in gets, or the call is refused. Each of these ran for seconds in one native step,
// or built strings past the limit (up to length² characters for $' and $`, which took the
// server's memory), before.
func TestScriptCodeCannotChangeWhatWasChecked(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`var n = 0; String.prototype.repeat.call({toString() { return n++ ? 'ab' : 'a' }}, 4e6).length`, "4000000"},
		{`var n = 0; 'ab'.repeat({valueOf() { return n++ ? 4e6 : 1 }})`, "ab"},
		{`var n = 0; 'a'.padStart({valueOf() { return n++ ? 8e6 : 1 }})`, "a"},
		{`var n = 0; String.prototype.replaceAll.call({toString() { return n++ ? 'x'.repeat(2e6) : 'x' }}, 'x', 'yyy')`, "yyy"},
		{`var n = 0; 'x'.repeat(1e5).replaceAll('x', {toString() { return n++ ? 'yyyy' : 'y' }}).length`, "100000"},
		{`var n = 0; encodeURIComponent({toString() { return n++ ? 'é'.repeat(4e6) : 'é' }})`, "%C3%A9"},
		{`var n = 0; Array.prototype.join.call({get length() { return n++ ? 3e7 : 1 }}, '-')`, ""},
		{`var a = [1]; a.join({toString() { a.length = 3e7; return '' }})`, "1"}, // the length is read first
		{`var a = [1, 2]; a.slice({valueOf() { a.length = 3e7; return 0 }})`, "the array has 30000000 elements"},
		{`var n = 0; Array.prototype.indexOf.call(new Proxy({}, {get(t, k) { return k === 'length' ? (n++ ? 3e7 : 1) : undefined }}), 5)`, "plugins do not pass a Proxy here"},
		{`Array.prototype.indexOf.call({get length() { return 1 }}, 5)`, "plugins do not pass an object whose length is a getter here"},
		{`Array.prototype.indexOf.call({length: {valueOf() { return 1 }}}, 5)`, "plugins do not pass an object whose length is an object here"},
		{`Array.from({length: 1, get [Symbol.iterator]() { return undefined }})`, "plugins do not pass an object whose Symbol.iterator is a getter here"},
		{`var b = [1]; var a = {length: 1, 0: 'a', get [Symbol.isConcatSpreadable]() { b.length = 3e7; return true }}; [].concat(a, b).length`, "concat: the array would have 30000001 elements"},
		{`Array(20).fill('x'.repeat(4e6)).join('')`, "join: the result would be more than 4194304 characters"},
		{`Array(3).fill('x'.repeat(2e6)).toLocaleString()`, "toLocaleString: the result would be more than 4194304 characters"},
		{`var s = 'x'.repeat(4e6); ''.concat(s, s)`, "concat: the result would be more than 4194304 characters"},
		{`var s = 'x'.repeat(1e6); String.raw({raw: [s, s, s, s, s]})`, "String.raw: the result would be more than 4194304 characters"},
		{`String.raw({raw: {length: 1e9}})`, "String.raw: 1000000000 parts"},
		{`'x'.repeat(2e5).replaceAll('x', 'y')`, "replaceAll: the string is 200000 characters and could match 200001 times"},
		{`'x'.repeat(2e5).replace(/x/, 'y')`, "replace: the string is 200000 characters and could match 200001 times"},
		{`'x'.repeat(2e5).replace('x', 'y').length`, "200000"},
		{`'ab'.repeat(1e5).replaceAll('ab', 'c').length`, "100000"},
		// Comparing long strings in one native loop: sort's default order counts, and the
		// searches of a long string run as JavaScript.
		{`var b = 'x'.repeat(4e6 - 1); var d = []; for (var i = 0; i < 8; i++) d.push(b + String.fromCharCode(97 + i)); var a = []; for (var j = 0; j < 1024; j++) a.push(d[j % 8]); a.sort().length`, "sort: the elements compared more than 67108864 characters"},
		// Patterns made from strings are compiled in one native step: bounded.
		{`new RegExp('x'.repeat(2e5))`, "RegExp: the pattern is 200000 characters; the limit is 131072"},
		{`RegExp('x'.repeat(2e5), 'g')`, "RegExp: the pattern is 200000 characters"},
		{`'a'.match('x'.repeat(2e5))`, "match: the pattern is 200000 characters"},
		{`'a'.matchAll('x'.repeat(2e5))`, "matchAll: the pattern is 200000 characters"},
		{`'a'.search('x'.repeat(2e5))`, "search: the pattern is 200000 characters"},
		{`/a/.compile('x'.repeat(2e5))`, "compile: the pattern is 200000 characters"},
		{`var n = 0; new RegExp({toString() { return n++ ? 'x'.repeat(4e6) : 'a' }}).source`, "a"},
	} {
		// Time enough that a loaded machine does not stop the cases that answer.
		v, err := runScriptFor(t, c.src, 30*time.Second)
		got := ""
		if err != nil {
			got = describe(err)
		} else if v != nil {
			got = v.String()
		}
		if !strings.Contains(got, c.want) || (err == nil && got != c.want) {
			t.Errorf("%s: got %q, want %q", c.src, got, c.want)
		}
	}
}

// $' and $` copy the text after and before each match: a replace of n matches made n²/2
// characters in one native loop; a capture in a lookahead, or a pattern that scans the rest of
// the string for each match, made the matching itself quadratic, in one native step; and
// indexOf or includes of a 4 MB string compared it with every element in one native loop. Each
// match and each substitution now runs as a call of JavaScript, where the heap watchdog or the
// time limit stops the run (before, the run was abandoned and went on for seconds to minutes,
// or took the server's memory).
func TestNativeLoopsOverLongStringsAreStopped(t *testing.T) {
	for _, src := range []string{
		`'x'.repeat(131000).replaceAll('x', "$'")`,
		`'x'.repeat(131000).replace(/x/g, "$\x60$\x60")`,
		`'x'.repeat(131000).replace(/(?=(x*))/g, "$1")`,
		`'x'.repeat(131000).match(/x*y|x/g)`,
		`'x'.repeat(131000).split(/x*y|(?:)/)`,
		`var b = 'x'.repeat(4e6 - 1); var d = []; for (var i = 0; i < 8; i++) d.push(b + String.fromCharCode(97 + i)); var a = []; for (var j = 0; j < 65536; j++) a.push(d[j % 7]); a.indexOf(d[7])`,
		`var b = 'x'.repeat(4e6 - 1); var d = []; for (var i = 0; i < 8; i++) d.push(b + String.fromCharCode(97 + i)); var a = []; for (var j = 0; j < 65536; j++) a.push(d[j % 7]); a.includes(d[7])`,
	} {
		start := time.Now()
		_, err := runScriptFor(t, src, time.Second)
		var le *limitError
		// (The substitutions are counted as they are made: past maxString characters in all,
		// the replace is a RangeError.)
		if !asLimit(err, &le) && !(err != nil && strings.Contains(err.Error(), "RangeError: replace: the result would be more than")) {
			t.Errorf("%s: got %v, want a limit to stop it", src, err)
		}
		// A bound against a run that was not stopped, not a measurement.
		if took := time.Since(start); took > time.Minute {
			t.Errorf("%s: took %s", src, took)
		}
	}
}

func asLimit(err error, le **limitError) bool {
	if err == nil {
		return false
	}
	l, ok := err.(*limitError)
	*le = l
	return ok
}
