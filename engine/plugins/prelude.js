// Hearth's prelude: runs in every plugin's runtime before the plugin, with the hardening of
// harden.go. It replaces the few built-ins whose native code walks a structure the script
// controls (a length, a nesting) in one uninterruptible step: written here in JavaScript, they
// stop at the time limit and grow the heap gradually, where the watchdog sees it. It is given
// `h`, the hardening's helpers, and returns the functions harden.go installs.
(function (h) {
  'use strict';
  var isArray = Array.isArray;
  var objectKeys = Object.keys;
  var quote = h.quote;
  var maxDepth = h.maxDepth;

  function toLength(v) {
    var n = Number(v);
    if (!(n > 0)) return 0;
    n = Math.floor(n);
    return n > 9007199254740991 ? 9007199254740991 : n;
  }

  function toDepth(v) {
    if (v === undefined) return 1;
    var n = Number(v);
    if (n !== n) return 0;
    return n === Infinity ? Infinity : Math.trunc(n);
  }

  function flattenInto(out, src, depth) {
    var len = toLength(src.length);
    for (var i = 0; i < len; i++) {
      if (!(i in src)) continue;
      var el = src[i];
      if (depth > 0 && isArray(el)) flattenInto(out, el, depth - 1);
      else out[out.length] = el;
    }
  }

  function flat(depth) {
    var out = [];
    flattenInto(out, Object(this), toDepth(depth));
    return out;
  }

  function flatMap(fn, thisArg) {
    if (typeof fn !== 'function') throw new TypeError('flatMap: the callback is not a function');
    var src = Object(this);
    var len = toLength(src.length);
    var out = [];
    for (var i = 0; i < len; i++) {
      if (!(i in src)) continue;
      var v = fn.call(thisArg, src[i], i, src);
      if (isArray(v)) flattenInto(out, v, 0);
      else out[out.length] = v;
    }
    return out;
  }

  // JSON.stringify as the standard says (toJSON, replacer function or list, gap), with the
  // nesting bounded by maxDepth.
  function stringify(value, replacer, space) {
    var replacerFn, allow;
    if (typeof replacer === 'function') {
      replacerFn = replacer;
    } else if (isArray(replacer)) {
      allow = [];
      var rlen = toLength(replacer.length);
      for (var i = 0; i < rlen; i++) {
        var item = replacer[i], name;
        if (typeof item === 'string') name = item;
        else if (typeof item === 'number' || item instanceof Number || item instanceof String) name = String(item);
        else continue;
        if (allow.indexOf(name) < 0) allow[allow.length] = name;
      }
    }
    if (space instanceof Number) space = Number(space);
    else if (space instanceof String) space = String(space);
    var gap = '';
    if (typeof space === 'number') {
      for (var g = Math.min(10, Math.trunc(space)); g > 0; g--) gap += ' ';
    } else if (typeof space === 'string') {
      gap = space.slice(0, 10);
    }
    var stack = [];

    function str(holder, key, indent) {
      var v = holder[key];
      if (v !== null && (typeof v === 'object' || typeof v === 'function')) {
        var toJSON = v.toJSON;
        if (typeof toJSON === 'function') v = toJSON.call(v, key);
      }
      if (replacerFn) v = replacerFn.call(holder, key, v);
      if (v !== null && typeof v === 'object') {
        if (v instanceof Number) v = Number(v);
        else if (v instanceof String) v = String(v);
        else if (v instanceof Boolean) v = v.valueOf();
      }
      switch (typeof v) {
        case 'string': return quote(v);
        case 'number': return isFinite(v) ? String(v) : 'null';
        case 'boolean': return v ? 'true' : 'false';
        case 'object': break;
        default: return undefined;
      }
      if (v === null) return 'null';
      if (stack.indexOf(v) >= 0) throw new TypeError('JSON.stringify: the value is circular');
      if (stack.length >= maxDepth) throw new RangeError('JSON.stringify: the value is nested deeper than ' + maxDepth + ' levels');
      stack[stack.length] = v;
      var inner = indent + gap, parts = [], out;
      if (isArray(v)) {
        var len = toLength(v.length);
        for (var i = 0; i < len; i++) {
          var s = str(v, String(i), inner);
          parts[parts.length] = s === undefined ? 'null' : s;
        }
        if (parts.length === 0) out = '[]';
        else if (gap) out = '[\n' + inner + parts.join(',\n' + inner) + '\n' + indent + ']';
        else out = '[' + parts.join(',') + ']';
      } else {
        var keys = allow || objectKeys(v);
        for (var k = 0; k < keys.length; k++) {
          var sv = str(v, keys[k], inner);
          if (sv !== undefined) parts[parts.length] = quote(keys[k]) + (gap ? ': ' : ':') + sv;
        }
        if (parts.length === 0) out = '{}';
        else if (gap) out = '{\n' + inner + parts.join(',\n' + inner) + '\n' + indent + '}';
        else out = '{' + parts.join(',') + '}';
      }
      stack.length--;
      return out;
    }

    return str({ '': value }, '', '');
  }

  // substitution makes the function that replaces each match with the replacement string
  // template, as the standard's GetSubstitution does ($$, $&, $`, $', $n and $nn, $<name>).
  // The built-in replace calls it once per match with (matched, captures..., position,
  // string[, groups]); being JavaScript, each call is where the time limit and the heap
  // watchdog can stop a replace whose result grows too big (see checkReplace in harden.go).
  function substitution(template) {
    if (template.indexOf('$') < 0) return function () { return template; };
    return function (matched) {
      var n = arguments.length, last = arguments[n - 1], groups, str, position, m;
      if (typeof last === 'string') {
        str = last; position = arguments[n - 2]; m = n - 3;
      } else {
        groups = last; str = arguments[n - 2]; position = arguments[n - 3]; m = n - 4;
      }
      var captures = [];
      for (var c = 1; c <= m; c++) captures[c] = arguments[c];
      var out = '', i = 0, len = template.length;
      while (i < len) {
        var dollar = template.indexOf('$', i);
        if (dollar < 0 || dollar === len - 1) {
          out += template.slice(i);
          break;
        }
        out += template.slice(i, dollar);
        i = dollar;
        var next = template.charAt(i + 1);
        if (next === '$') {
          out += '$'; i += 2;
        } else if (next === '&') {
          out += matched; i += 2;
        } else if (next === '`') {
          out += str.slice(0, position); i += 2;
        } else if (next === "'") {
          var tail = position + matched.length;
          if (tail < str.length) out += str.slice(tail);
          i += 2;
        } else if (next >= '0' && next <= '9') {
          var d1 = next.charCodeAt(0) - 48, next2 = template.charAt(i + 2), v;
          var two = next2 >= '0' && next2 <= '9' ? d1 * 10 + next2.charCodeAt(0) - 48 : 0;
          if (two >= 1 && two <= m) {
            v = captures[two]; i += 3;
          } else if (d1 >= 1 && d1 <= m) {
            v = captures[d1]; i += 2;
          } else {
            out += '$'; i += 1; continue;
          }
          if (v !== undefined) out += v;
        } else if (next === '<' && groups !== undefined) {
          var close = template.indexOf('>', i + 2);
          if (close < 0) {
            out += '$<'; i += 2;
          } else {
            var g = groups[template.slice(i + 2, close)];
            if (g !== undefined) out += String(g);
            i = close + 1;
          }
        } else {
          out += '$'; i += 1;
        }
      }
      return out;
    };
  }

  // exec is RegExp.prototype.exec (see harden.go for why it is JavaScript).
  var nativeExec = h.exec;
  function exec(string) {
    return nativeExec(this, string);
  }

  // indexOf, lastIndexOf and includes for a long string (see harden.go): one comparison per
  // step of JavaScript. A string is never equal to a hole, NaN or -0, so the standard's
  // distinctions between them do not arise.
  function toInt(v) {
    var n = Number(v);
    if (n !== n) return 0;
    return n === Infinity || n === -Infinity ? n : Math.trunc(n);
  }
  function arrayLike(self, what) {
    if (self === undefined || self === null) throw new TypeError('Array.prototype.' + what + ' called on null or undefined');
    return Object(self);
  }
  function find(o, needle, fromIndex) {
    var len = toLength(o.length), k = toInt(fromIndex);
    if (k >= len) return -1;
    if (k < 0) k = Math.max(len + k, 0);
    for (; k < len; k++) if (o[k] === needle) return k;
    return -1;
  }
  function indexOf(needle, fromIndex) {
    return find(arrayLike(this, 'indexOf'), needle, fromIndex);
  }
  function includes(needle, fromIndex) {
    return find(arrayLike(this, 'includes'), needle, fromIndex) >= 0;
  }
  function lastIndexOf(needle, fromIndex) {
    var o = arrayLike(this, 'lastIndexOf'), len = toLength(o.length);
    if (len === 0) return -1;
    var k = arguments.length > 1 ? toInt(fromIndex) : len - 1;
    k = k >= 0 ? Math.min(k, len - 1) : len + k;
    for (; k >= 0; k--) if (o[k] === needle) return k;
    return -1;
  }

  // RegExp is the constructor with its pattern bounded (h.maxPattern characters): goja
  // compiles a pattern in one native step that took a second and more than 64 MB for 4 million
  // characters. A regular expression given as the pattern is taken as it is (its own pattern
  // was bounded when it was made); anything else is converted to a string once.
  var NativeRegExp = h.RegExp, construct = Reflect.construct, isRegExp = h.isRegExp;
  var toStr = h.toStr, maxPattern = h.maxPattern;
  function RegExp(pattern, flags) {
    if (isRegExp(pattern)) {
      if (new.target === undefined && flags === undefined && pattern.constructor === RegExp) return pattern;
    } else if (pattern !== undefined) {
      pattern = toStr(pattern);
      if (pattern.length > maxPattern) {
        throw new RangeError('RegExp: the pattern is ' + pattern.length + ' characters; the limit is ' + maxPattern);
      }
    }
    if (flags !== undefined) flags = toStr(flags);
    return construct(NativeRegExp, flags === undefined ? [pattern] : [pattern, flags], new.target === undefined ? RegExp : new.target);
  }
  Object.defineProperty(RegExp, 'prototype', { value: NativeRegExp.prototype, writable: false });
  Object.defineProperty(NativeRegExp.prototype, 'constructor', { value: RegExp, writable: true, enumerable: false, configurable: true });
  Object.defineProperty(RegExp, Symbol.species, { get: function () { return this; }, configurable: true });

  return {
    flat: flat, flatMap: flatMap, stringify: stringify, substitution: substitution, exec: exec,
    RegExp: RegExp, indexOf: indexOf, lastIndexOf: lastIndexOf, includes: includes,
  };
})
