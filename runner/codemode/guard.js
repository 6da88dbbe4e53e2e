// Guards installed in every program's runtime before the program runs.
// Native built-ins run to completion without checking for interruption, so
// those that can build a result far larger than their inputs are wrapped to
// refuse a result of more than `limit` elements (characters or array
// entries) before they start. The originals stay reachable only through
// this closure. Called as: guard(limit, tools, console).
(function (limit, tools, console) {
	"use strict";
	const apply = Reflect.apply, define = Object.defineProperty, freeze = Object.freeze;
	const Str = String, Num = Number, isArray = Array.isArray, RangeErr = RangeError;
	const S = String.prototype, A = Array.prototype;
	const orig = {
		repeat: S.repeat, padStart: S.padStart, padEnd: S.padEnd, split: S.split,
		replace: S.replace, replaceAll: S.replaceAll, sconcat: S.concat,
		join: A.join, fill: A.fill, concat: A.concat, flat: A.flat,
		from: Array.from, stringify: JSON.stringify,
	};
	function tooBig() {
		throw new RangeErr("run_code: result too large (limit " + limit + " elements)");
	}
	function check(n) {
		if (!(n <= limit)) tooBig(); // also refuses NaN
	}
	function len(v) {
		return v == null ? 0 : Num(v.length) || 0;
	}
	function wrap(obj, name, f) {
		define(obj, name, { value: f, writable: true, configurable: true, enumerable: false });
	}
	wrap(S, "repeat", function repeat(count) {
		const n = Num(count);
		if (n > 0) check(Str(this).length * n);
		return apply(orig.repeat, this, arguments);
	});
	wrap(S, "padStart", function padStart(n) {
		check(Num(n) || 0);
		return apply(orig.padStart, this, arguments);
	});
	wrap(S, "padEnd", function padEnd(n) {
		check(Num(n) || 0);
		return apply(orig.padEnd, this, arguments);
	});
	wrap(S, "concat", function concat() {
		let n = Str(this).length;
		for (let i = 0; i < arguments.length; i++) check(n += Str(arguments[i]).length);
		return apply(orig.sconcat, this, arguments);
	});
	wrap(S, "split", function split(sep) {
		const n = Str(this).length;
		if (typeof sep === "string" && sep !== "") check(n / sep.length + 1);
		else if (sep !== undefined) check(n + 1);
		return apply(orig.split, this, arguments);
	});
	// Upper bound of a replacement's result: matches x replacement length.
	function replaced(self, pattern, replacement, all) {
		if (typeof replacement === "function") return; // its results are built in JavaScript
		const n = Str(self).length, r = Str(replacement).length;
		let matches = 1;
		if (typeof pattern === "string") {
			if (all) matches = pattern === "" ? n + 1 : n / pattern.length + 1;
		} else if (pattern != null && Str(pattern.flags).indexOf("g") >= 0) {
			matches = n + 1;
		}
		// $& and friends can copy the whole input per match.
		check(n + matches * (r <= 1 ? r : r + (Str(replacement).indexOf("$") >= 0 ? n : 0)));
	}
	wrap(S, "replace", function replace(pattern, replacement) {
		replaced(this, pattern, replacement, false);
		return apply(orig.replace, this, arguments);
	});
	wrap(S, "replaceAll", function replaceAll(pattern, replacement) {
		replaced(this, pattern, replacement, true);
		return apply(orig.replaceAll, this, arguments);
	});
	wrap(A, "join", function join(sep) {
		const n = len(this), s = sep === undefined ? 1 : Str(sep).length;
		let total = n > 0 ? (n - 1) * s : 0;
		check(total);
		for (let i = 0; i < n; i++) {
			const e = this[i];
			if (e != null) check(total += Str(e).length);
		}
		return apply(orig.join, this, arguments);
	});
	wrap(A, "fill", function fill() {
		check(len(this));
		return apply(orig.fill, this, arguments);
	});
	wrap(A, "concat", function concat() {
		let n = len(this);
		for (let i = 0; i < arguments.length; i++) {
			const a = arguments[i];
			check(n += isArray(a) ? len(a) : 1);
		}
		return apply(orig.concat, this, arguments);
	});
	function flatLen(a, depth) {
		let n = 0;
		const l = len(a);
		for (let i = 0; i < l; i++) {
			const e = a[i];
			check(n += depth > 0 && isArray(e) ? flatLen(e, depth - 1) : 1);
		}
		return n;
	}
	wrap(A, "flat", function flat(depth) {
		const d = depth === undefined ? 1 : Num(depth);
		flatLen(this, d > 64 ? 64 : d);
		return apply(orig.flat, this, arguments);
	});
	wrap(Array, "from", function from(items) {
		if (items != null && typeof items !== "string") check(len(items));
		return apply(orig.from, this, arguments);
	});
	// JSON text is at least as long as the strings and keys it holds: count
	// them (shared references count each time, as stringify copies them).
	function jsonLen(v, depth, n) {
		if (typeof v === "string") return n + v.length + 2;
		if (v === null || typeof v !== "object" || depth > 64) return n + 4;
		if (isArray(v)) {
			const l = len(v);
			for (let i = 0; i < l; i++) check(n = jsonLen(v[i], depth + 1, n + 1));
			return n;
		}
		for (const k in v) check(n = jsonLen(v[k], depth + 1, n + k.length + 4));
		return n;
	}
	wrap(JSON, "stringify", function stringify(value) {
		check(jsonLen(value, 0, 0));
		return apply(orig.stringify, this, arguments);
	});
	freeze(tools);
	freeze(console);
})
