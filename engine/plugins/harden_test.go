package plugins

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"
)

// runScript runs src in a hardened runtime under the hook limits and returns its result.
func runScript(t *testing.T, src string) (goja.Value, error) {
	t.Helper()
	return runScriptFor(t, src, 500*time.Millisecond)
}

// runScriptFor is runScript with a time limit of its own: the tests of other limits give the
// script time enough that a busy machine cannot make it run out first.
func runScriptFor(t *testing.T, src string, limit time.Duration) (goja.Value, error) {
	t.Helper()
	prog, err := compile("test.js", src)
	if err != nil {
		return nil, err
	}
	sb, err := newSandbox(500)
	if err != nil {
		t.Fatal(err)
	}
	var out goja.Value
	r := newRunner(64 << 20)
	r.acquire()
	err = r.run(sb, "the script", limit, func() {}, func() error {
		v, err := sb.vm.RunProgram(prog)
		out = v
		return err
	})
	if !errors.Is(err, errAbandoned) {
		r.release()
	}
	return out, err
}

// bigString makes long strings by doubling, which is quick even under the race detector.
const bigString = `function big(n) { let s = 'x'; while (s.length < n) s += s; return s.slice(0, n) }
`

// Each of these takes a tiny script and, without the hardening, runs for seconds to minutes
// in one native step or allocates gigabytes at once (measured on goja before it). Hardened,
// each fails fast with a RangeError or TypeError naming the limit, or is refused at compile.
func TestHostileBuiltinsFailFast(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`'x'.repeat(1 << 28)`, "repeat: the result would be"},
		{`'x'.padStart(1e9)`, "padStart: the result would be"},
		{`'x'.padEnd(1e9)`, "padEnd: the result would be"},
		{`new Array(1e8).fill(0)`, "the array has 100000000 elements"},
		{`Array(1e7).join('abcdefgh')`, "the array has 10000000 elements"},
		{`Array.prototype.join.call({length: 3e7})`, "the array has 30000000 elements"},
		{`Array.prototype.fill.call({length: 3e7}, 0)`, "the array has 30000000 elements"},
		{`var a = [1, 2, 3]; a.length = 3e7; a.indexOf(5)`, "the array has 30000000 elements"},
		{`[...Array(3e7)]`, "the array has 30000000 elements"},
		{`Math.max(...Array(3e6))`, "the array has 3000000 elements"},
		{`Array.from({length: 3e6})`, "Array.from: the array-like has 3000000 elements"},
		{`Array.from(big(1e6))`, "Array.from: the string is 1000000 characters"},
		{`[[]].concat(Array(1e7))`, "concat: the array would have"},
		{`[Array(1e7)].flat()`, "the script ran longer than 500ms"},
		{`Math.max.apply(null, {length: 1e8})`, "apply: 100000000 arguments"},
		{`Reflect.apply(Math.max, null, {length: 1e8})`, "Reflect.apply: 100000000 arguments"},
		{`JSON.stringify([Array(1e8)])`, "the script ran longer than 500ms"},
		{`var o = {}; for (var i = 0; i < 100; i++) o = {a: o}; JSON.stringify(o)`, "nested deeper than 64 levels"},
		{`JSON.parse('['.repeat(100) + ']'.repeat(100))`, "nested deeper than 64 levels"},
		{`var t = '0,'; while (t.length < 4e5) t += t; JSON.parse('[' + t + '0]')`, "more than 131072 values"},
		{`var s = big(1e6); ({...s})`, "the string is 1000000 characters"},
		{`var s = big(1e6); Object.assign({}, s)`, "Object.assign: the string is 1000000 characters"},
		{`Object.keys(new String(big(1e6)))`, "Object.keys: the string is 1000000 characters"},
		{`var s = big(1e6); for (var k in s) {}`, "the string is 1000000 characters"},
		{`var s = big(1e6); [...s]`, "iterating a string of 1000000 characters"},
		{`big(1e6).split('')`, "split: the string is 1000000 characters"},
		{`big(1e6).match(/x/g)`, "match: the string is 1000000 characters"},
		{`big(4e6).replaceAll('x', 'yy')`, "replaceAll: the string is 4000000 characters and could match 4000001 times"},
		{`big(1e5).replaceAll('x', 'y'.repeat(100))`, "replaceAll: the result could be 10000000 characters"},
		{`big(4e6).replace(/x/g, 'yy')`, "replace: the string is 4000000 characters and could match 4000001 times"},
		{`String.raw({raw: {length: 1e9}})`, "String.raw: 1000000000 parts"},
		{`encodeURIComponent(big(4e6))`, "encodeURIComponent: the string is 4000000 characters"},
		{`new ArrayBuffer(1e9)`, "ArrayBuffer is not defined"},
		{`new Uint8Array(1e9)`, "Uint8Array is not defined"},
		{`BigInt(2) ** BigInt(1e9)`, "BigInt is not defined"},
		{`1n << 3000000000n`, "BigInt literals are not available to plugins"},
		{`const {...rest} = big(1e6)`, "object rest patterns"},
		{`eval('1 + 1')`, "eval is not defined"},
		{`(function(){}).constructor('return 1')()`, "functions cannot be made from strings"},
		{`(async function(){}).constructor('return 1')()`, "functions cannot be made from strings"},
		{`(function*(){}).constructor('yield 1')()`, "functions cannot be made from strings"},
		{`/(a*)*\1b/.test('a'.repeat(40))`, "the script ran longer than 500ms"},
		{`while (true) {}`, "the script ran longer than 500ms"},
		{`function f() { f() } f()`, "the call stack grew"},
	} {
		runtime.GC()
		before := heapObjects()
		start := time.Now()
		// A case that fails on a limit other than time gets time enough that a loaded machine
		// (CI's two cores under -race) cannot make it run out first.
		limit := 10 * time.Second
		if strings.Contains(c.want, "ran longer than") {
			limit = 500 * time.Millisecond
		}
		_, err := runScriptFor(t, bigString+c.src, limit)
		took := time.Since(start)
		grew := int64(heapObjects()) - int64(before)
		msg := "<nil>"
		if err != nil {
			msg = describe(err)
		}
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s: got %q, want it to say %q", c.src, msg, c.want)
		}
		// Bounds against a hung or ballooning run, not measurements: each of these took
		// seconds and hundreds of MB or more before the hardening.
		if took > 5*time.Second {
			t.Errorf("%s: took %s", c.src, took)
		}
		if grew > 256<<20 {
			t.Errorf("%s: the heap grew by %d MB", c.src, grew>>20)
		}
	}
}

// The heap watchdog stops a run that keeps what it allocates.
func TestHeapLimitStopsARun(t *testing.T) {
	_, err := runScriptFor(t, `var keep = [], s = 'x'; while (s.length < (1 << 21)) s += s; for (;;) { s = s + 'z'; keep.push(s) }`, time.Minute)
	var le *limitError
	if !errors.As(err, &le) || !strings.Contains(le.msg, "used more than 64 MB of memory") {
		t.Fatalf("got %v, want the memory limit", err)
	}
}

// Garbage is not charged: a run that allocates far more than the limit but keeps little runs
// until its time is up.
func TestGarbageIsNotCharged(t *testing.T) {
	_, err := runScript(t, `var s = 'x'; while (s.length < (1 << 21)) s += s; for (;;) { var garbage = s + 'z' }`)
	var le *limitError
	if !errors.As(err, &le) || !strings.Contains(le.msg, "ran longer than") {
		t.Fatalf("got %v, want the time limit", err)
	}
}

// What the hardening keeps working.
func TestHardenedBuiltinsStillWork(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`JSON.stringify({a: [1, 'two', null, undefined, () => 1], b: {c: true}, d: undefined, e: new Date(0), f: NaN})`, `{"a":[1,"two",null,null,null],"b":{"c":true},"e":"1970-01-01T00:00:00.000Z","f":null}`},
		{`JSON.stringify({a: 1, b: [1, 2]}, null, 2)`, "{\n  \"a\": 1,\n  \"b\": [\n    1,\n    2\n  ]\n}"},
		{`JSON.stringify({a: 1, b: 2, c: 3}, ['c', 'a'])`, `{"c":3,"a":1}`},
		{`JSON.stringify({a: 1, b: 'x'}, (k, v) => typeof v === 'number' ? v * 2 : v)`, `{"a":2,"b":"x"}`},
		{`JSON.stringify('he said "hi"\n')`, `"he said \"hi\"\n"`},
		{`JSON.stringify([new String('s'), new Number(3), new Boolean(false)])`, `["s",3,false]`},
		{`JSON.stringify(undefined) === undefined`, `true`},
		{`JSON.stringify({toJSON() { return {x: 1} }})`, `{"x":1}`},
		{`try { var o = {}; o.o = o; JSON.stringify(o) } catch (e) { e.message }`, `JSON.stringify: the value is circular`},
		{`JSON.stringify(JSON.parse('{"a":[1,{"b":"c"}]}'))`, `{"a":[1,{"b":"c"}]}`},
		{`[1, [2, [3, [4]]]].flat(Infinity).join()`, `1,2,3,4`},
		{`[1, [2, [3]]].flat().length`, `3`},
		{`[1, 2].flatMap(x => [x, x * 10]).join()`, `1,10,2,20`},
		{`[...'héllo'].length`, `5`},
		{`({...{a: 1}, b: 2}).a + ({...'ab'})[1]`, `1b`},
		{`var n = 0; for (var k in 'abc') n++; n`, `3`},
		{`'a-b-c'.split('-').join('+')`, `a+b+c`},
		{`'aaa'.replace(/a/g, 'b') + 'x'.repeat(3) + 'y'.padStart(3, '.')`, `bbbxxx..y`},
		{`Math.max(...[1, 5, 3]) + Math.max.apply(null, [1, 7])`, `12`},
		{`Array.from({length: 3}, (_, i) => i).concat([3], 4).join('')`, `01234`},
		{`Object.keys({a: 1, b: 2}).join() + Object.entries({c: 3})[0].join()`, `a,bc,3`},
		{`typeof [].values === 'function' && [][Symbol.iterator] === [].values`, `true`},
		{`/(\d+)-(\d+)/.exec('10-20')[2]`, `20`},
		{`[3, 1, 2].sort().toString()`, `1,2,3`},
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

// A run that ignores Interrupt (a native step the hardening missed) is abandoned: its turn
// goes back, so other plugins run, and it reports errAbandoned once it returns.
func TestStuckRunIsAbandoned(t *testing.T) {
	r := newRunner(64 << 20)
	stuck, _ := newSandbox(500)
	release := make(chan struct{})
	abandoned := make(chan struct{})
	result := make(chan error, 1)
	go func() {
		r.acquire()
		result <- r.run(stuck, "the stuck hook", 50*time.Millisecond, func() { close(abandoned) }, func() error {
			<-release // a native step that does not look at Interrupt
			return nil
		})
	}()
	select {
	case <-abandoned:
	case <-time.After(10 * time.Second):
		t.Fatal("the stuck run was not abandoned")
	}
	// Another plugin gets the turn while the stuck one still runs.
	other, _ := newSandbox(500)
	r.acquire()
	if err := r.run(other, "another hook", time.Second, func() {}, func() error { _, err := other.vm.RunString("1 + 1"); return err }); err != nil {
		t.Fatalf("another plugin's run: %v", err)
	}
	r.release()
	close(release)
	if err := <-result; !errors.Is(err, errAbandoned) {
		t.Fatalf("the stuck run returned %v, want errAbandoned", err)
	}
	// The turn is still there, exactly once.
	r.acquire()
	if err := r.run(other, "a third hook", time.Second, func() {}, func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	r.release()
	if len(r.turn) != 1 {
		t.Fatalf("%d turns, want 1", len(r.turn))
	}
}
