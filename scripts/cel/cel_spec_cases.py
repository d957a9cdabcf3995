#!/usr/bin/env python3
"""Usage: cel_spec_cases.py FILE.textproto... > tests/unit/cel/interpreter/cel_spec_cases.inc

Turns cel-spec's tests/simple/testdata/*.textproto into a C++ table of (expression, expected value) cases the
interpreter tests evaluate end to end. Cases needing messages, containers, unknowns or declarations are left out."""
import re, sys

def tokenize(text):
    tokens = []
    i = 0
    while i < len(text):
        c = text[i]
        if c.isspace():
            i += 1
        elif c == '#':
            while i < len(text) and text[i] != '\n':
                i += 1
        elif c in '{}<>:[],;':
            tokens.append(('p', c)); i += 1
        elif c in '"\'':
            q = c; j = i + 1; buf = bytearray()
            while text[j] != q:
                if text[j] == '\\':
                    n = text[j + 1]
                    simple = {'n': 10, 't': 9, 'r': 13, '\\': 92, '"': 34, "'": 39, 'a': 7, 'b': 8, 'f': 12, 'v': 11, '?': 63}
                    if n in simple:
                        buf.append(simple[n]); j += 2
                    elif n in '01234567':
                        k = j + 1; digits = ''
                        while k < len(text) and len(digits) < 3 and text[k] in '01234567':
                            digits += text[k]; k += 1
                        buf.append(int(digits, 8)); j = k
                    elif n == 'x':
                        k = j + 2; digits = ''
                        while k < len(text) and len(digits) < 2 and text[k] in '0123456789abcdefABCDEF':
                            digits += text[k]; k += 1
                        buf.append(int(digits, 16)); j = k
                    elif n == 'u':
                        buf += chr(int(text[j + 2:j + 6], 16)).encode(); j += 6
                    elif n == 'U':
                        buf += chr(int(text[j + 2:j + 10], 16)).encode(); j += 10
                    else:
                        raise ValueError('escape ' + n)
                else:
                    buf += text[j].encode(); j += 1
            i = j + 1
            # adjacent string literals concatenate
            if tokens and tokens[-1][0] == 's':
                tokens[-1] = ('s', tokens[-1][1] + bytes(buf))
            else:
                tokens.append(('s', bytes(buf)))
        else:
            j = i
            while j < len(text) and (text[j].isalnum() or text[j] in '_.-+/'):
                j += 1
            if j == i:
                raise ValueError('bad char %r' % c)
            tokens.append(('w', text[i:j])); i = j
    return tokens

def parse_message(tokens, pos, end):
    fields = []
    while pos < len(tokens) and tokens[pos] != ('p', end):
        kind, name = tokens[pos]
        if kind == 'p' and name == '[':
            j = pos + 1; parts = []
            while tokens[j] != ('p', ']'):
                parts.append(tokens[j][1]); j += 1
            name = '[' + ''.join(p if isinstance(p, str) else p.decode() for p in parts) + ']'
            pos = j + 1
        else:
            pos += 1
        if tokens[pos] == ('p', ':'):
            pos += 1
        t = tokens[pos]
        if t == ('p', '{') or t == ('p', '<'):
            close = '}' if t[1] == '{' else '>'
            sub, pos = parse_message(tokens, pos + 1, close)
            fields.append((name, sub)); pos += 1
        elif t == ('p', '['):
            pos += 1
            while tokens[pos] != ('p', ']'):
                if tokens[pos] == ('p', ','):
                    pos += 1; continue
                if tokens[pos] in (('p', '{'), ('p', '<')):
                    close = '}' if tokens[pos][1] == '{' else '>'
                    sub, pos = parse_message(tokens, pos + 1, close); fields.append((name, sub)); pos += 1
                else:
                    fields.append((name, tokens[pos][1])); pos += 1
            pos += 1
        else:
            fields.append((name, t[1])); pos += 1
        if pos < len(tokens) and tokens[pos] in (('p', ','), ('p', ';')):
            pos += 1
    return fields, pos

def get(fields, name):
    return [v for k, v in fields if k == name]

def cpp_bytes(b):
    out = ''
    for byte in b:
        ch = chr(byte)
        if ch == '"' or ch == '\\':
            out += '\\' + ch
        elif 32 <= byte < 127 and ch != '?':
            out += ch
        else:
            out += '\\%03o' % byte
    return 'std::string("%s", %d)' % (out, len(b))

class Skip(Exception):
    pass

def cpp_value(fields):
    (k, v), = fields if len(fields) == 1 else [(None, None)] if not fields else [fields[0]]
    if k is None:
        raise Skip('empty value')
    if k == 'int64_value': return 'I("%s")' % v
    if k == 'uint64_value': return 'U("%s")' % v
    if k == 'double_value': return 'D("%s")' % v
    if k == 'string_value': return 'Value(%s)' % cpp_bytes(v)
    if k == 'bytes_value': return 'Value(Bytes{%s})' % cpp_bytes(v)
    if k == 'bool_value': return 'Value(%s)' % v
    if k == 'null_value': return 'Value()'
    if k == 'type_value': return 'Value(TypeValue{"%s"})' % v.decode()
    if k == 'list_value':
        return 'Value::list({%s})' % ', '.join(cpp_value(e) for e in get(v, 'values'))
    if k == 'map_value':
        entries = []
        for e in get(v, 'entries'):
            entries.append('{%s, %s}' % (cpp_value(get(e, 'key')[0]), cpp_value(get(e, 'value')[0])))
        return 'Value::map({%s})' % ', '.join(entries)
    if k == 'object_value':
        (tk, tv), = v
        if tk == '[type.googleapis.com/google.protobuf.Duration]':
            secs = int((get(tv, 'seconds') or ['0'])[0]); nanos = int((get(tv, 'nanos') or ['0'])[0])
            return 'Value(Duration{%dLL})' % (secs * 1000000000 + nanos)
        if tk == '[type.googleapis.com/google.protobuf.Timestamp]':
            secs = int((get(tv, 'seconds') or ['0'])[0]); nanos = int((get(tv, 'nanos') or ['0'])[0])
            return 'Value(Timestamp{%dLL, %d})' % (secs, nanos)
        raise Skip('object ' + tk)
    raise Skip('value kind ' + k)

def main(files):
    print('// Generated by scripts/cel/cel_spec_cases.py from cel-spec tests/simple/testdata; do not edit.')
    count = 0
    for path in files:
        fields, _ = parse_message(tokenize(open(path).read()), 0, None)
        file_name = get(fields, 'name')[0].decode()
        for section in get(fields, 'section'):
            section_name = get(section, 'name')[0].decode()
            for test in get(section, 'test'):
                name = get(test, 'name')[0].decode()
                expr = get(test, 'expr')[0]
                try:
                    for unsupported in ('container', 'type_env', 'unknown', 'any_unknowns', 'typed_result', 'check_only', 'disable_macros'):
                        if get(test, unsupported):
                            raise Skip(unsupported)
                    if re.search(rb'[A-Za-z_]\s*\{', expr) or b'TestAllTypes' in expr or b'google.protobuf.' in expr and b'{' in expr:
                        raise Skip('message')
                    bindings = []
                    for b in get(test, 'bindings'):
                        key = get(b, 'key')[0].decode()
                        inner = get(get(b, 'value')[0], 'value')
                        if not inner:
                            raise Skip('binding')
                        bindings.append('{"%s", %s}' % (key, cpp_value(inner[0])))
                    if get(test, 'eval_error') or get(test, 'any_eval_errors'):
                        expected = 'std::nullopt'
                    else:
                        value = get(test, 'value')
                        expected = cpp_value(value[0]) if value else 'Value(true)'
                except Skip:
                    continue
                count += 1
                checked = 'false' if get(test, 'disable_check') == ['true'] else 'true'
                print('{"%s/%s/%s", %s, [] { return std::optional<Value>(%s); }, {%s}, %s},' % (
                    file_name, section_name, name, cpp_bytes(expr), expected, ', '.join(bindings), checked))
    print('// %d cases' % count)

main(sys.argv[1:])
