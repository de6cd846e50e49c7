import { describe, expect, it } from "vitest";
import { GoError, GoFunc, MAP_ANY, SLICE_STRING, BYTES, T, Template, nilOf, typed, type Value } from "../../src/gotemplate/index.js";

/**
 * Templates run through Go's text/template (go1.19, JSON data decoded as Kubernetes decodes it),
 * and what Go printed or the error it gave, word for word. Features newer than go1.19 (range over
 * an integer, else-with) are covered by the exec.json conformance test instead.
 */

interface Row {
  t: string;
  data: Value;
  opt?: string;
  out?: string;
  err?: string;
  parseErr?: string;
}

const num = (v: Value) => (typeof v === "number" ? v : (v as { value: number }).value);

/** The helper functions the Go program registered, with their Go signatures. */
const FUNCS = {
  oneArg: new GoFunc({ params: [T.string], result: T.string }, ([a]) => "oneArg=" + a),
  intArg: new GoFunc({ params: [T.int], result: T.int }, ([a]) => num(a)),
  int64Arg: new GoFunc({ params: [T.int64], result: T.int64 }, ([a]) => num(a)),
  fail: new GoFunc({ params: [], result: T.string, error: true }, () => {
    throw new GoError("boom");
  }),
  mkint: new GoFunc({ params: [], result: T.int }, () => 3),
  mkf: new GoFunc({ params: [], result: T.float64 }, () => 3),
  strs: new GoFunc({ params: [], result: SLICE_STRING }, () => typed(["a", "b"], SLICE_STRING)),
  nilmap: new GoFunc({ params: [], result: MAP_ANY }, () => nilOf(MAP_ANY)),
  bytes: new GoFunc({ params: [], result: BYTES }, () => Buffer.from("hi")),
};

const ROWS: Row[] = [
  { t: "{{.a.b}}", data: { a: null }, err: 'template: t:1:4: executing "t" at <.a.b>: nil pointer evaluating interface {}.b' },
  { t: "{{.a.b.c}}", data: {}, out: "<no value>" },
  { t: "{{.a}}", data: { a: null }, out: "<no value>" },
  { t: "{{print .a}}", data: { a: null }, out: "<nil>" },
  { t: "{{oneArg .a}}", data: { a: null }, err: 'template: t:1:9: executing "t" at <.a>: wrong type for value; expected string; got interface {}' },
  { t: "{{oneArg .missing}}", data: {}, err: 'template: t:1:9: executing "t" at <.missing>: invalid value; expected string' },
  { t: "{{oneArg 3}}", data: {}, err: 'template: t:1:9: executing "t" at <3>: expected string; found 3' },
  { t: "{{oneArg .n}}", data: { n: 3 }, err: 'template: t:1:9: executing "t" at <.n>: wrong type for value; expected string; got int64' },
  { t: "{{intArg .n}}", data: { n: 3 }, err: 'template: t:1:9: executing "t" at <.n>: wrong type for value; expected int; got int64' },
  { t: "{{intArg 3.0}}", data: {}, out: "3" },
  { t: "{{intArg 3.5}}", data: {}, err: 'template: t:1:9: executing "t" at <3.5>: expected integer; found 3.5' },
  { t: "{{int64Arg 3}}", data: {}, out: "3" },
  { t: "{{int64Arg .n}}", data: { n: 3 }, out: "3" },
  { t: "{{int64Arg mkint}}", data: {}, err: 'template: t:1:11: executing "t" at <mkint>: wrong type for value; expected int64; got int' },
  { t: "{{fail}}", data: {}, err: 'template: t:1:2: executing "t" at <fail>: error calling fail: boom' },
  { t: "x\n  {{fail}}", data: {}, err: 'template: t:2:4: executing "t" at <fail>: error calling fail: boom' },
  { t: "{{.missing}}", data: {}, opt: "missingkey=error", err: 'template: t:1:2: executing "t" at <.missing>: map has no entry for key "missing"' },
  { t: "{{.a.missing}}", data: { a: {} }, opt: "missingkey=zero", out: "<no value>" },
  { t: "{{.missing.x}}", data: {}, opt: "missingkey=error", err: 'template: t:1:10: executing "t" at <.missing.x>: map has no entry for key "missing"' },
  {
    t: "{{$x := .missing}}{{$x.y}}",
    data: {},
    opt: "missingkey=error",
    err: 'template: t:1:8: executing "t" at <.missing>: map has no entry for key "missing"',
  },
  { t: "{{1.5}} {{1e6}} {{1e21}} {{0.000001}} {{1234567.0}} {{-0.0}} {{mkf}}", data: {}, out: "1.5 1e+06 1e+21 1e-06 1.234567e+06 -0 3" },
  { t: "{{.f}} {{.g}}", data: { f: 1.5, g: 1e300 }, out: "1.5 1e+300" },
  {
    t: '{{printf "%d %s %v %q %x %X %o %b %e %E %g %G %f %t %c %U" 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16}}',
    data: {},
    out: "1 %!s(int=2) 3 '\\x04' 5 6 7 1000 %!e(int=9) %!E(int=10) %!g(int=11) %!G(int=12) %!f(int=13) %!t(int=14) \u000f U+0010",
  },
  {
    t: '{{printf "%6.2f|%-6d|%06d|%+d|% d|%#x|%#o|%x|%X|%10s|%-10s|%.2s|%5.1q" 3.14159 42 42 42 42 255 8 "hi" "hi" "abc" "abc" "abc" "abc"}}',
    data: {},
    out: '  3.14|42    |000042|+42| 42|0xff|010|6869|6869|       abc|abc       |ab|  "a"',
  },
  {
    t: '{{printf "%d" "x"}} {{printf "%s" 3}} {{printf "%d %d" 1}} {{printf "%d" 1 2}} {{printf "%!"}} {{printf "%"}} {{printf "%[2]d %[1]d" 1 2}} {{printf "%[3]d" 1}} {{printf "%*d" 5 3}} {{printf "%.*f" 2 3.14159}}',
    data: {},
    out: "%!d(string=x) %!s(int=3) 1 %!d(MISSING) 1%!(EXTRA int=2) %!!(MISSING) %!(NOVERB) 2 1 %!d(BADINDEX)     3 3.14",
  },
  {
    t: '{{printf "%v" .}} {{printf "%+v" .}} {{printf "%#v" .}}',
    data: { a: [1, "x", null, { b: true }] },
    out: 'map[a:[1 x <nil> map[b:true]]] map[a:[1 x <nil> map[b:true]]] map[string]interface {}{"a":[]interface {}{1, "x", interface {}(nil), map[string]interface {}{"b":true}}}',
  },
  { t: '{{printf "%v %s %x %q" bytes bytes bytes bytes}}', data: {}, out: '[104 105] hi 6869 "hi"' },
  { t: "{{.}}", data: [1, 2.5, "a", null, true, { z: 1, a: [] }], out: "[1 2.5 a <nil> true map[a:[] z:1]]" },
  {
    t: '{{strs}} {{printf "%T %T %T %T %T %T" strs nilmap bytes 1 1.5 .}}',
    data: { x: 1 },
    out: "[a b] []string map[string]interface {} []uint8 int float64 map[string]interface {}",
  },
  { t: '{{nilmap}} {{printf "%#v" nilmap}} {{len nilmap}} {{if nilmap}}y{{else}}n{{end}}', data: {}, out: "map[] map[string]interface {}(nil) 0 n" },
  { t: "{{index . 1}} {{index . 5}}", data: [1, 2], err: 'template: t:1:16: executing "t" at <index . 5>: error calling index: index out of range: 5' },
  {
    t: '{{index .m "a"}} {{index .m "zz"}} {{index .m 1}}',
    data: { m: { a: 1 } },
    err: 'template: t:1:37: executing "t" at <index .m 1>: error calling index: value has type int; should be string',
  },
  { t: '{{index "abc" 1}} {{slice "héllo" 1 3}} {{len "héllo"}}', data: {}, out: "98 é 6" },
  { t: "{{index .m.x 0}}", data: { m: { x: null } }, err: 'template: t:1:2: executing "t" at <index .m.x 0>: error calling index: index of untyped nil' },
  { t: "{{index nil 0}}", data: {}, err: 'template: t:1:2: executing "t" at <index nil 0>: error calling index: index of untyped nil' },
  { t: "{{len .}}", data: 5, err: 'template: t:1:2: executing "t" at <len .>: error calling len: len of type int64' },
  { t: "{{len .x}}", data: {}, err: 'template: t:1:2: executing "t" at <len .x>: error calling len: reflect: call of reflect.Value.Type on zero Value' },
  { t: "{{len .x}}", data: { x: null }, err: 'template: t:1:2: executing "t" at <len .x>: error calling len: len of nil pointer' },
  { t: "{{eq 1 1.0}}", data: {}, err: 'template: t:1:2: executing "t" at <eq 1 1.0>: error calling eq: incompatible types for comparison' },
  {
    t: '{{eq .a "x"}} {{eq .missing "x"}} {{eq .m .m}}',
    data: { a: "x", m: {} },
    err: 'template: t:1:36: executing "t" at <eq .m .m>: error calling eq: non-comparable type map[]: map[string]interface {}',
  },
  {
    t: "{{eq .l .l}}",
    data: { l: [1] },
    err: 'template: t:1:2: executing "t" at <eq .l .l>: error calling eq: non-comparable type [%!s(int64=1)]: []interface {}',
  },
  {
    t: '{{lt 1 2}} {{lt "a" "b"}} {{lt true false}}',
    data: {},
    err: 'template: t:1:28: executing "t" at <lt true false>: error calling lt: invalid type for comparison',
  },
  { t: "{{lt .missing 1}}", data: {}, err: 'template: t:1:2: executing "t" at <lt .missing 1>: error calling lt: invalid type for comparison' },
  { t: "{{eq 1}}", data: {}, err: 'template: t:1:2: executing "t" at <eq 1>: error calling eq: missing argument for comparison' },
  { t: "{{ne 1 2}} {{le 2 2}} {{gt 3 2}} {{ge 1 2}} {{eq 1 2 3 1}} {{eq .n 3}}", data: { n: 3 }, out: "true true true false true true" },
  { t: "{{range .}}{{.}}{{end}}", data: "abc", err: 'template: t:1:8: executing "t" at <.>: range can\'t iterate over abc' },
  { t: "{{range .}}{{.}}{{end}}", data: 1.5, err: 'template: t:1:8: executing "t" at <.>: range can\'t iterate over 1.5' },
  { t: "{{if .}}{{end}}{{with $x := 1}}{{$x}}{{end}}{{$x}}", data: {}, parseErr: 'template: t:1: undefined variable "$x"' },
  { t: '{{template "x"}}', data: {}, err: 'template: t:1:11: executing "t" at <{{template "x"}}>: template "x" not defined' },
  { t: '{{define "x"}}[{{.}}]{{end}}{{template "x" 1}}{{block "y" 2}}<{{.}}>{{end}}', data: {}, out: "[1]<2>" },
  {
    t: '{{define "x"}}{{.a.b}}{{end}}{{template "x" .}}',
    data: { a: null },
    err: 'template: t:1:18: executing "x" at <.a.b>: nil pointer evaluating interface {}.b',
  },
  { t: '{{ .x | oneArg }} {{ "a" | printf "%s-%s" "b" }}', data: { x: "q" }, out: "oneArg=q b-a" },
  { t: "{{ 1 | oneArg }}", data: {}, err: 'template: t:1:7: executing "t" at <oneArg>: wrong type for value; expected string; got int' },
  { t: "{{.x 1}}", data: { x: 1 }, err: 'template: t:1:2: executing "t" at <.x>: x is not a method but has arguments' },
  { t: "{{$}}", data: { x: 1 }, out: "map[x:1]" },
  { t: "{{$.x.y}}", data: { x: 1 }, err: 'template: t:1:3: executing "t" at <$.x.y>: can\'t evaluate field y in type interface {}' },
  {
    t: '{{html "<a href=\'x\'>&\\u0000</a>"}} {{js "a\'b\\"c<>&=\\u0001é"}} {{urlquery "a b&c=d/é"}} {{html .missing}} {{html 1 2 "x" nil}}',
    data: {},
    out: "&lt;a href=&#39;x&#39;&gt;&amp;�&lt;/a&gt; a\\'b\\\"c\\u003C\\u003E\\u0026\\u003D\\u0001é a+b%26c%3Dd%2F%C3%A9 &lt;no value&gt; 1 2x&lt;no value&gt;",
  },
  { t: "{{- 1 -}}  \n {{- /* c */ -}} x {{2}}", data: {}, out: "1x 2" },
  { t: "{{/* comment */}}a{{- /* c2 */}} b", data: {}, out: "a b" },
  { t: "{{if}}{{end}}", data: {}, parseErr: "template: t:1: missing value for if" },
  { t: "{{end}}", data: {}, parseErr: "template: t:1: unexpected {{end}}" },
  { t: "{{range .}}{{else}}{{else}}{{end}}", data: {}, parseErr: "template: t:1: expected end; found {{else}}" },
  { t: "{{break}}", data: {}, parseErr: "template: t:1: {{break}} outside {{range}}" },
  { t: "{{.a | 1}}", data: {}, parseErr: "template: t:1: non executable command in pipeline stage 2" },
  { t: '{{"unterminated}}', data: {}, parseErr: "template: t:1: unterminated quoted string" },
  { t: "{{.x\n", data: {}, parseErr: "template: t:2: unclosed action started at t:1" },
  { t: "{{(1}}", data: {}, parseErr: "template: t:1: unclosed left paren" },
  { t: "{{1)}}", data: {}, parseErr: 'template: t:1: unexpected ")" in command' },
  { t: "{{$x}}", data: {}, parseErr: 'template: t:1: undefined variable "$x"' },
  { t: "{{nofunc 1}}", data: {}, parseErr: 'template: t:1: function "nofunc" not defined' },
  { t: "{{1 2}}", data: {}, err: 'template: t:1:2: executing "t" at <1>: can\'t give argument to non-function 1' },
  { t: '{{ .a.b | printf "%v" }}', data: { a: { b: [1, 2] } }, out: "[1 2]" },
  { t: "{{ .a-b }}", data: {}, parseErr: "template: t:1: bad character U+002D '-'" },
  { t: "{{ 0x1p-2 }} {{ 1_000 }} {{ 'a' }} {{ '\\n' }} {{ 0b11 }} {{ -5 }} {{ +5 }}", data: {}, out: "0.25 1000 97 10 3 -5 5" },
  { t: "{{ 9223372036854775808 }}", data: {}, err: 'template: t:1:3: executing "t" at <9223372036854775808>: 9223372036854775808 overflows int' },
  { t: "{{ 99999999999999999999 }}", data: {}, parseErr: 'template: t:1: integer overflow: "99999999999999999999"' },
  { t: "{{ 1.2.3 }}", data: {}, parseErr: 'template: t:1: unexpected ".3" in operand' },
  { t: "{{if eq .a 1}}one{{else if eq .a 2}}two{{else}}other{{end}}", data: { a: 2 }, out: "two" },
  { t: "{{range $i, $v := .}}{{$i}}={{$v}};{{end}}", data: { b: 1, a: 2, B: 3, é: 4, _: 5 }, out: "B=3;_=5;a=2;b=1;é=4;" },
  { t: "{{range .}}{{if eq . 2}}{{continue}}{{end}}{{if eq . 4}}{{break}}{{end}}{{.}}{{end}}", data: [1, 2, 3, 4, 5], out: "13" },
  { t: "{{$x := 1}}{{range .}}{{$x = .}}{{end}}{{$x}}", data: [1, 2, 3], out: "3" },
  { t: "{{$y = 1}}", data: {}, err: 'template: t:1:7: executing "t" at <1>: undefined variable: $y' },
  {
    t: '{{ and 1 0 }} {{ or 0 "" }} {{ not .missing }} {{ and }}',
    data: {},
    err: 'template: t:1:50: executing "t" at <and>: wrong number of args for and: want at least 1 got 0',
  },
  { t: '{{ print 1 2 "a" "b" 3 nil }} {{ println 1 "a" }}', data: {}, out: "1 2ab3 <nil> 1 a\n" },
  { t: "{{ .x.y }}", data: { x: "str" }, err: 'template: t:1:5: executing "t" at <.x.y>: can\'t evaluate field y in type interface {}' },
  { t: "{{ .x.y }}", data: { x: [1] }, err: 'template: t:1:5: executing "t" at <.x.y>: can\'t evaluate field y in type interface {}' },
  { t: "{{ .x.y }}", data: { x: 3 }, err: 'template: t:1:5: executing "t" at <.x.y>: can\'t evaluate field y in type interface {}' },
  { t: '{{ printf "%s" .x }}', data: { x: { a: "b", c: [1, "d"] } }, out: "map[a:b c:[%!s(int64=1) d]]" },
  { t: '{{ printf "%d" .x }}', data: { x: { a: "b", c: [1, "d"] } }, out: "map[%!d(string=a):%!d(string=b) %!d(string=c):[1 %!d(string=d)]]" },
  {
    t: '{{ printf "%.3g|%g|%g|%e|%.0f|%.0f|%.0f|%.2f|%8.3e|%G" 1234.5678 0.0001 0.00001 0.0 0.5 1.5 2.5 0.125 12345.678 1e-10 }}',
    data: {},
    out: "1.23e+03|0.0001|1e-05|0.000000e+00|0|2|2|0.12|1.235e+04|1E-10",
  },
  {
    t: '{{ printf "%5t|%v|%x|%X|% x|%#x|%q|%+q|%#q" true true "héllo" "hi" "hi" "hi" "é\\n" "é" "a`b" }}',
    data: {},
    out: ' true|true|68c3a96c6c6f|6869|68 69|0x6869|"é\\n"|"\\u00e9"|"a`b"',
  },
  { t: '{{ printf "%c|%q|%U|%#U|%x|%o|%O" 65 65 233 233 -255 8 8 }}', data: {}, out: "A|'A'|U+00E9|U+00E9 'é'|-ff|10|0o10" },
  { t: '{{ printf "%08.3f|%-8.3f|%+.2e|%x|%X" -3.14159 3.14159 12345.0 1.5 -2.75 }}', data: {}, out: "-003.142|3.142   |+1.23e+04|0x1.8p+00|-0X1.6P+01" },
];

describe("text/template against Go's output", () => {
  for (const row of ROWS) {
    it(`${row.t}${row.opt ? ` (${row.opt})` : ""}`, () => {
      const t = new Template("t").funcs(FUNCS);
      if (row.opt) t.option(...row.opt.split(","));
      if (row.parseErr) {
        expect(() => t.parse(row.t)).toThrow(row.parseErr);
        return;
      }
      t.parse(row.t);
      if (row.err) expect(() => t.execute(row.data)).toThrow(row.err);
      else expect(t.execute(row.data)).toBe(row.out);
    });
  }
});
